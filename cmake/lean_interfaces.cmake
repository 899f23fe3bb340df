# Why: an interface package here is read by rclpy over rmw_fastrtps_cpp, the only client library
# and the only RMW the PyPI wheels ship; both go through the C type support (rosidl_typesupport_c
# dispatching to rosidl_typesupport_fastrtps_c). rmw_fastrtps also describes every type to DDS
# (XTypes type information) from the C introspection type support: without it each service or
# topic of ours left an rcutils error behind ("Type support not from this implementation"),
# which the next failing check printed as a 30-line dump at every start (issue 44), and tools
# that read types by introspection could not. The C++ headers and the C++ type supports are
# most of an interface package's compile time and nothing here loads them, so by default they
# are not generated. -DSOCCERSIM_FULL_INTERFACES=ON generates them all (for rclcpp nodes or
# another RMW built against this workspace).
#
# Included by each interface package between find_package(rosidl_default_generators) and
# rosidl_generate_interfaces(); a package copied out of this workspace skips it (OPTIONAL)
# and generates everything, as upstream.
option(SOCCERSIM_FULL_INTERFACES "generate the C++ and introspection type supports too" OFF)
if(NOT SOCCERSIM_FULL_INTERFACES)
  list(FILTER AMENT_EXTENSIONS_rosidl_generate_idl_interfaces EXCLUDE REGEX
    "^rosidl_(generator_cpp|typesupport_cpp|typesupport_fastrtps_cpp|typesupport_introspection_cpp):")
  # The generated sources of one type support are compiled as one unit (each file alone
  # re-parses the same headers). The C generator's type descriptions repeat static names, so not those.
  function(_soccersim_unity_type_supports)
    foreach(suffix __rosidl_typesupport_c __rosidl_typesupport_fastrtps_c __rosidl_typesupport_introspection_c
                   __rosidl_generator_py)
      if(TARGET ${PROJECT_NAME}${suffix})
        set_target_properties(${PROJECT_NAME}${suffix} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
      endif()
    endforeach()
    set_target_properties(${PROJECT_NAME}__rosidl_generator_c PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    get_target_property(sources ${PROJECT_NAME}__rosidl_generator_c SOURCES)
    list(FILTER sources INCLUDE REGEX "__description\\.c$")
    set_source_files_properties(${sources} TARGET_DIRECTORY ${PROJECT_NAME}__rosidl_generator_c PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endfunction()
  cmake_language(DEFER CALL _soccersim_unity_type_supports)
  message(STATUS "${PROJECT_NAME}: C, C introspection and Python type supports only (SOCCERSIM_FULL_INTERFACES=OFF)")
endif()
