# find_package(yaten CONFIG): yaten's headers, libyaten (the imported target yaten::yaten) and
# yaten_add_extension(), which builds an extension's Python module from its ops.yaml (docs/extensions.md).
#
#   find_package(yaten CONFIG REQUIRED)      # CMAKE_PREFIX_PATH: yaten.utils.cpp_extension.cmake_prefix_path()
#   yaten_add_extension(yaten_example OPS ops.yaml SOURCES kernels/cpu.h kernels/cuda.cuh src/extra.cpp)
#   install(TARGETS yaten_example LIBRARY DESTINATION .)
#
# Installed at <yaten>/share/cmake/yaten/, so the package directory is three levels up.
get_filename_component(YATEN_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(YATEN_INCLUDE_DIRS "${YATEN_PACKAGE_DIR}/include" "${YATEN_PACKAGE_DIR}/generated")
set(YATEN_LIBRARY "${YATEN_PACKAGE_DIR}/libyaten.so")
if(NOT EXISTS "${YATEN_LIBRARY}" OR NOT EXISTS "${YATEN_PACKAGE_DIR}/include/dispatch/library.h")
  set(yaten_FOUND FALSE)
  set(yaten_NOT_FOUND_MESSAGE "no libyaten.so and headers under ${YATEN_PACKAGE_DIR}: reinstall yaten")
  return()
endif()
if(NOT Python_EXECUTABLE OR NOT TARGET Python::Module)
  find_package(Python 3.10 REQUIRED COMPONENTS Interpreter Development.Module)
endif()

execute_process(COMMAND "${Python_EXECUTABLE}" -c "import yaten; print(int(yaten._C._build_config['cuda']))"
                OUTPUT_VARIABLE YATEN_BUILT_WITH_CUDA OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE yaten_probe)
if(NOT yaten_probe EQUAL 0)
  set(YATEN_BUILT_WITH_CUDA 0)
endif()

if(NOT TARGET yaten::yaten)
  add_library(yaten::yaten SHARED IMPORTED)
  set_target_properties(yaten::yaten PROPERTIES
    IMPORTED_LOCATION "${YATEN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${YATEN_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES Python::Module
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()

# yaten_add_extension(NAME OPS ops.yaml SOURCES files...)
#   NAME     the Python module (import NAME) and its PyInit_NAME
#   OPS      the extension's ops.yaml, starting with `- namespace: NS`
#   SOURCES  kernel headers (.h: CPU and composite kernels, .cuh: CUDA kernels), found as yaten finds its own, and
#            .cpp/.cu files compiled into the module; .cu/.cuh files are used only when CUDA is enabled
# The generator runs at build time (and again whenever ops.yaml or a header changes) into
# ${CMAKE_CURRENT_BINARY_DIR}/NAME_generated; the module's type stub is installed by yaten_install_extension.
function(yaten_add_extension NAME)
  cmake_parse_arguments(ARG "" "OPS" "SOURCES" ${ARGN})
  if(NOT ARG_OPS)
    message(FATAL_ERROR "yaten_add_extension(${NAME}): give OPS ops.yaml")
  endif()
  get_filename_component(ops "${ARG_OPS}" ABSOLUTE)
  get_filename_component(root "${ops}" DIRECTORY)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(with_cuda OFF)
  if("CUDA" IN_LIST languages)
    # CUDA kernels call libyaten's CUDA launchers, which a yaten built without CUDA does not have
    if(YATEN_BUILT_WITH_CUDA)
      set(with_cuda ON)
    else()
      message(STATUS "yaten_add_extension(${NAME}): yaten was built without CUDA, so the CUDA sources are left out")
    endif()
  endif()
  set(headers "")
  set(compiled "")
  foreach(src ${ARG_SOURCES})
    get_filename_component(src "${src}" ABSOLUTE)
    if(src MATCHES "\\.cuh$")
      if(with_cuda)
        list(APPEND headers "${src}")
      endif()
    elseif(src MATCHES "\\.(h|hpp)$")
      list(APPEND headers "${src}")
    elseif(src MATCHES "\\.cu$")
      if(with_cuda)
        list(APPEND compiled "${src}")
      endif()
    else()
      list(APPEND compiled "${src}")
    endif()
  endforeach()
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${NAME}_generated")
  set(codegen "${Python_EXECUTABLE}" -m yaten.codegen)
  set(args --yaml "${ops}" --root "${root}" --module ${NAME} --kernels ${headers})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ops}")
  execute_process(COMMAND ${codegen} outputs ${args}
                  OUTPUT_VARIABLE outputs ERROR_VARIABLE errors RESULT_VARIABLE result
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "yaten_add_extension(${NAME}): ${ARG_OPS} has errors:\n${errors}")
  endif()
  set(generated "")
  foreach(f ${outputs})
    list(APPEND generated "${gen}/${f}")
  endforeach()
  add_custom_command(
    OUTPUT ${generated}
    COMMAND ${codegen} generate ${args} --out "${gen}"
    DEPENDS "${ops}" ${headers}
    COMMENT "Generating ${NAME} from ${ARG_OPS}"
    VERBATIM)
  set(sources ${generated})
  if(with_cuda)
    list(FILTER sources INCLUDE REGEX "\\.(cpp|cu)$")
  else()
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
  endif()
  Python_add_library(${NAME} MODULE WITH_SOABI ${sources} ${compiled})
  target_link_libraries(${NAME} PRIVATE yaten::yaten)
  set(dirs "${root}" "${gen}")
  foreach(h ${headers})
    get_filename_component(d "${h}" DIRECTORY)
    list(APPEND dirs "${d}")
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  target_include_directories(${NAME} PRIVATE ${dirs})
  # The math flags yaten's own kernels are built with (its CMakeLists.txt says why).
  target_compile_options(${NAME} PRIVATE
                         $<$<COMPILE_LANGUAGE:CXX>:-Wno-unused-parameter -fno-math-errno -fno-trapping-math>)
  if(with_cuda)
    find_package(CUDAToolkit REQUIRED)
    target_compile_options(${NAME} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
    target_link_libraries(${NAME} PRIVATE CUDA::cudart_static)
    set_target_properties(${NAME} PROPERTIES CUDA_STANDARD 17)
  endif()
  # Default visibility (yaten's typeinfo must match across libraries); the version script exports PyInit_NAME
  # alone, and a statically linked C++ runtime stays local (Design rule [libyaten]).
  set(map "${CMAKE_CURRENT_BINARY_DIR}/${NAME}_exports.map")
  file(WRITE "${map}" "{\n  global: PyInit_${NAME};\n  local: *;\n};\n")
  set_target_properties(${NAME} PROPERTIES CXX_VISIBILITY_PRESET default CUDA_VISIBILITY_PRESET default
                        INSTALL_RPATH "${YATEN_PACKAGE_DIR}" BUILD_RPATH "${YATEN_PACKAGE_DIR}")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${NAME} PRIVATE "LINKER:--version-script=${map}" "LINKER:--exclude-libs,ALL")
  endif()
  set_property(TARGET ${NAME} PROPERTY YATEN_STUB "${gen}/stubs/${NAME}.pyi")
endfunction()

# yaten_install_extension(NAME [DESTINATION dir]): the module and its type stub (NAME.pyi) side by side.
function(yaten_install_extension NAME)
  cmake_parse_arguments(ARG "" "DESTINATION" "" ${ARGN})
  if(NOT ARG_DESTINATION)
    set(ARG_DESTINATION .)
  endif()
  install(TARGETS ${NAME} LIBRARY DESTINATION ${ARG_DESTINATION})
  get_property(stub TARGET ${NAME} PROPERTY YATEN_STUB)
  install(FILES "${stub}" DESTINATION ${ARG_DESTINATION})
endfunction()
