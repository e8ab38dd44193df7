# dtrain_library(NAME [RECURSE] [EXCLUDE file...] [SOURCES file...] [USES folder...]
#                [LINK target...] [PRIVATE_LINK target...])
#
# One static library, dtrain_NAME, per folder src/NAME/: its .cc files (with RECURSE, those of
# its subfolders too) but the EXCLUDEd ones, and the SOURCES given. USES names the folders it may include, and LINK /
# PRIVATE_LINK the outside libraries it needs (LINK when they appear in its headers).
#
# The arrows of docs/architecture.md are enforced by include roots: each library's root,
# build/include_roots/NAME/, holds one link, NAME -> src/NAME, and a library sees only its own
# root and those of the libraries it uses (CMake passes them on through PUBLIC links). So
# `#include "solver/solver.h"` from src/layers/ finds no such file and the build fails.
function(dtrain_library name)
  cmake_parse_arguments(ARG "RECURSE" "" "EXCLUDE;SOURCES;USES;LINK;PRIVATE_LINK" ${ARGN})
  set(folder ${CMAKE_SOURCE_DIR}/src/${name})
  if(ARG_RECURSE)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${folder}/*.cc)
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${folder}/*.cc)
  endif()
  foreach(excluded ${ARG_EXCLUDE})
    list(REMOVE_ITEM sources ${folder}/${excluded})
  endforeach()
  add_library(dtrain_${name} STATIC ${sources} ${ARG_SOURCES})
  set(root ${CMAKE_BINARY_DIR}/include_roots/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${folder} ${root}/${name} SYMBOLIC)
  target_include_directories(dtrain_${name} PUBLIC ${root})
  list(TRANSFORM ARG_USES PREPEND dtrain_)
  target_link_libraries(dtrain_${name} PUBLIC ${ARG_USES} ${ARG_LINK}
    PRIVATE dtrain_warnings ${ARG_PRIVATE_LINK})
endfunction()
