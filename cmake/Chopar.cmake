# Helpers shared by every src/<area>/CMakeLists.txt.

# chopar_embed_sql(<target> <area>): every src/<area>/queries/*.sql becomes a
# named constant `chopar::<area>::queries::kFileName` of type db::Query in the
# generated header "<area>/queries.hpp"; the query's name is "<area>.<file>".
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
# in the folder except tests and benchmarks, plus its test binaries:
# <area>_test from *_test.cpp (pure, no database) and <area>_pgtest from
# *_pgtest.cpp (needs CHOPAR_TEST_DATABASE_URL).
function(chopar_area area)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "_(test|pgtest|benchmark)\\.cpp$")
  if(NOT sources)
    # A folder that has only headers so far.
    add_library(chopar_${area} INTERFACE)
    target_link_libraries(chopar_${area} INTERFACE chopar_options ${ARG_DEPS})
    return()
  endif()
  add_library(chopar_${area} STATIC ${sources})
  target_link_libraries(chopar_${area} PUBLIC chopar_options ${ARG_DEPS})
  chopar_embed_sql(chopar_${area} ${area})

  if(CHOPAR_BUILD_TESTS)
    foreach(kind test pgtest)
      file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_${kind}.cpp)
      if(tests)
        add_executable(${area}_${kind} ${tests})
        target_link_libraries(${area}_${kind} PRIVATE chopar_${area} chopar_testing GTest::gmock_main)
        gtest_discover_tests(${area}_${kind} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${kind})
      endif()
    endforeach()
  endif()
endfunction()
