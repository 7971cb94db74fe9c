# Script mode: writes OUT, a header with the text of FILE as
# `inline constexpr std::string_view NAME` in namespace NAMESPACE (e.g.
# docs/openapi.yaml for GET /openapi.yaml). The view is made from the
# array's size, not by measuring the text: a constant expression may loop
# at most 262144 times, and the text is longer.
file(READ ${FILE} text)
string(FIND "${text}" ")chopar_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${FILE} contains the raw-string delimiter )chopar_text\"")
endif()
file(RELATIVE_PATH rel ${ROOT} ${FILE})
set(body "// Generated from ${rel} — edit that file.\n#pragma once\n\n#include <string_view>\n\nnamespace ${NAMESPACE} {\n\ninline constexpr char ${NAME}Text[] = R\"chopar_text(${text})chopar_text\";\ninline constexpr std::string_view ${NAME}(${NAME}Text, sizeof(${NAME}Text) - 1);\n\n}  // namespace ${NAMESPACE}\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
