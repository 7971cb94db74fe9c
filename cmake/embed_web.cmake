# Script mode: writes OUT.hpp and OUT.cpp, which put the text files of FILES
# (under ROOT: .html, .js, .css, .svg) into the binary. OUT.hpp has one
# http::web::Asset per file, served at "/" + its path below ROOT (see
# src/http/web_routes.hpp); OUT.cpp has their bytes.
#
# The bytes are included by the assembler (.incbin), not written into a C++
# string literal: web/docs holds an 860 KB bundle, and a string_view of a
# literal that long is past GCC's constexpr limit (its length is counted at
# compile time) and slow to compile besides. The size of each file is written
# into OUT.hpp, and its SHA-256 into the assembler text of OUT.cpp, so a
# changed file changes that source and it is compiled again — by ninja and by
# ccache alike, neither of which sees the files .incbin reads. ELF only
# (.pushsection with flags), like the rest of chopar.
set(declarations "")
set(assets "")
set(assembly "")
set(index 0)
foreach(file ${FILES})
  file(RELATIVE_PATH rel ${ROOT} ${file})
  get_filename_component(ext ${file} LAST_EXT)
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js" OR ext STREQUAL ".mjs")
    set(type "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(type "image/svg+xml")
  else()
    message(FATAL_ERROR "web/${rel}: only .html, .js, .css and .svg files are embedded")
  endif()
  if(file MATCHES "[\"\\\\]" OR rel MATCHES "[\"\\\\]")
    message(FATAL_ERROR "web/${rel}: a quote or a backslash in the path cannot be embedded")
  endif()
  file(SIZE ${file} size)
  file(SHA256 ${file} sha256)
  set(symbol "chopar_web_${index}")
  string(APPEND declarations "extern \"C\" const char ${symbol}[];  // web/${rel}\n")
  string(APPEND assets "    {\"/${rel}\", \"${type}\", {${symbol}, ${size}}},\n")
  string(APPEND assembly "    \".globl ${symbol}\\n\"\n    \"${symbol}:\\n\"\n"
         "    \".incbin \\\"${file}\\\" /* sha256 ${sha256} */\\n\"\n")
  math(EXPR index "${index} + 1")
endforeach()

set(header "// Generated from web/ by cmake/embed_web.cmake — edit those files.\n#pragma once\n\n#include <string_view>\n\nnamespace chopar::http::web {\n\nstruct Asset {\n  std::string_view path;\n  std::string_view content_type;\n  std::string_view body;\n};\n\n// The files' bytes, from web_assets.cpp.\n${declarations}\ninline constexpr Asset kAssets[] = {\n${assets}};\n\n}  // namespace chopar::http::web\n")
set(source "// Generated from web/ by cmake/embed_web.cmake — edit those files.\n// The bytes of each file, included by the assembler; the sizes are in\n// web_assets.hpp.\nasm(\".pushsection .rodata.chopar_web, \\\"a\\\"\\n\"\n${assembly}    \".popsection\\n\");\n")

file(WRITE ${OUT}.hpp.tmp "${header}")
file(COPY_FILE ${OUT}.hpp.tmp ${OUT}.hpp ONLY_IF_DIFFERENT)
file(WRITE ${OUT}.cpp.tmp "${source}")
file(COPY_FILE ${OUT}.cpp.tmp ${OUT}.cpp ONLY_IF_DIFFERENT)
