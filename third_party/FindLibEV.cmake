# Finds libev (Debian: libev-dev), which ships no pkg-config file.
# Defines the imported target LibEV::LibEV.
find_path(LIBEV_INCLUDE_DIR ev.h PATH_SUFFIXES libev)
find_library(LIBEV_LIBRARY NAMES ev)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibEV REQUIRED_VARS LIBEV_LIBRARY LIBEV_INCLUDE_DIR)
if(LibEV_FOUND AND NOT TARGET LibEV::LibEV)
  add_library(LibEV::LibEV UNKNOWN IMPORTED)
  set_target_properties(LibEV::LibEV PROPERTIES
    IMPORTED_LOCATION "${LIBEV_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBEV_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBEV_INCLUDE_DIR LIBEV_LIBRARY)
