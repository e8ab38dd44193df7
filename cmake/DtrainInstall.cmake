# What `cmake --install build [--prefix P]` puts where (GNUInstallDirs), and the Debian package
# `cpack -G DEB` (run in build/) makes of it:
#   bin/dtrain                                  the command
#   lib/python3.X/dist-packages/dtrain/         the Python module (Debian's Python 3.X searches
#                                               this folder under /usr and /usr/local)
#   share/doc/dtrain/                           README.md and docs/
#   share/dtrain/models/                        the shipped nets and solvers
#   share/dtrain/spot-interruption-watch.sh     for AWS compute nodes (docs/aws.md)
# A package meant for other machines is built with -DDTRAIN_NATIVE=OFF (no -march=native).
include(GNUInstallDirs)

install(TARGETS dtrain RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/dtrain/models)
# Started by `dtrain cluster aws`'s bootstrap on compute nodes that install the package.
install(PROGRAMS ${CMAKE_SOURCE_DIR}/deploy/aws/spot-interruption-watch.sh
  DESTINATION ${CMAKE_INSTALL_DATADIR}/dtrain)

if(DTRAIN_PYTHON)
  set(DTRAIN_PYTHON_INSTALL_DIR
    lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages CACHE STRING
    "where the Python package goes, relative to the prefix")
  install(TARGETS _dtrain LIBRARY DESTINATION ${DTRAIN_PYTHON_INSTALL_DIR}/dtrain)
  file(GLOB python_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/python/dtrain/*.py)
  install(FILES ${python_files} DESTINATION ${DTRAIN_PYTHON_INSTALL_DIR}/dtrain)
  # The caffe package (pycaffe's names) beside it, with the generated caffe_pb2 modules.
  file(GLOB caffe_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/python/caffe/*.py)
  install(FILES ${caffe_files} DESTINATION ${DTRAIN_PYTHON_INSTALL_DIR}/caffe)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/python/caffe/proto/
    DESTINATION ${DTRAIN_PYTHON_INSTALL_DIR}/caffe/proto FILES_MATCHING PATTERN "*.py")
endif()

# The Debian package: its library dependencies found by dpkg-shlibdeps from the binaries, the
# Python ones named.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dtrain)
set(CPACK_PACKAGE_CONTACT "dtrain developers <dtrain@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "trains deep neural networks from Caffe's formats on CPU machines and clusters")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3-numpy")
# caffe.proto.caffe_pb2 (the caffe package) needs Python's protobuf; the rest works without it.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-protobuf")
if(DTRAIN_PYTHON)
  # The module is built for one Python version.
  set(python_version ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR})
  math(EXPR python_next "${Python3_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
    ", python3 (>= ${python_version}), python3 (<< ${Python3_VERSION_MAJOR}.${python_next})")
endif()
if(DTRAIN_WITH_MPI)
  # mpirun, and the data server beside it, for multi-host training.
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", openmpi-bin")
endif()
include(CPack)
