# Script mode: writes OUT, a header with the text of FILE as
# `inline constexpr std::string_view NAME` in namespace NAMESPACE (e.g.
# docs/openapi.yaml for GET /openapi.yaml).
file(READ ${FILE} text)
string(FIND "${text}" ")chopar_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${FILE} contains the raw-string delimiter )chopar_text\"")
endif()
file(RELATIVE_PATH rel ${ROOT} ${FILE})
set(body "// Generated from ${rel} — edit that file.\n#pragma once\n\n#include <string_view>\n\nnamespace ${NAMESPACE} {\n\ninline constexpr std::string_view ${NAME} = R\"chopar_text(${text})chopar_text\";\n\n}  // namespace ${NAMESPACE}\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
