# Helpers shared by every src/<area>/CMakeLists.txt.

# An area is a folder of src/, nested ones included: "channels/telegram".
# Its library is chopar_<area> and its test binaries <area>_test and
# <area>_pgtest, with "/" written "_" (chopar_channels_telegram); its
# namespace is chopar::<area> with "/" written "::".

# chopar_embed_sql(<target> <area>): every src/<area>/queries/*.sql becomes a
# named constant `chopar::<area namespace>::queries::kFileName` of type
# db::Query in the generated header "<area>/queries.hpp"; the query's name is
# "<area>.<file>" with "/" written "." ("channels.telegram.<file>").
function(chopar_embed_sql target area)
  file(GLOB sql_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/queries/*.sql)
  if(NOT sql_files)
    return()
  endif()
  set(out ${CMAKE_BINARY_DIR}/generated/${area}/queries.hpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DAREA=${area} -DOUT=${out} "-DFILES=${sql_files}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_sql.cmake
    DEPENDS ${sql_files} ${CMAKE_SOURCE_DIR}/cmake/embed_sql.cmake
    COMMENT "Embedding ${area} queries"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()

# chopar_area(<area> DEPS <libs...>): the library chopar_<area> from every .cpp
# in the folder (not its subfolders) except tests and benchmarks, plus its
# test binaries: <area>_test from *_test.cpp (pure, no database) and
# <area>_pgtest from *_pgtest.cpp (needs CHOPAR_TEST_DATABASE_URL).
function(chopar_area area)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  string(REPLACE "/" "_" name ${area})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "_(test|pgtest|benchmark)\\.cpp$")
  if(NOT sources)
    # A folder that has only headers so far.
    add_library(chopar_${name} INTERFACE)
    target_link_libraries(chopar_${name} INTERFACE chopar_options ${ARG_DEPS})
    return()
  endif()
  add_library(chopar_${name} STATIC ${sources})
  target_link_libraries(chopar_${name} PUBLIC chopar_options ${ARG_DEPS})
  chopar_embed_sql(chopar_${name} ${area})

  if(CHOPAR_BUILD_TESTS)
    foreach(kind test pgtest)
      file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_${kind}.cpp)
      if(tests)
        add_executable(${name}_${kind} ${tests})
        target_link_libraries(${name}_${kind} PRIVATE chopar_${name} chopar_testing GTest::gmock_main)
        gtest_discover_tests(${name}_${kind} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${kind})
      endif()
    endforeach()
  endif()
endfunction()
