# clcpackPack.cmake — clcpack_add_pack(), included by clcpackConfig.cmake
# (docs/CMAKE.md).
#
# clcpack_add_pack(<name>
#     [TARGET <target>]           the application the pack is for
#     [KERNELS_DIR <dir>]         folder with manifest.txt (default: kernels/
#                                 beside the calling CMakeLists.txt)
#     [KERNELS <name>...]         kernels to pack (--kernel; default: all)
#     [DEFINES <NAME=LIST>...]    axis values (-D NAME=LIST; FILTER_WIDTH=3,5)
#     [WG <list>]                 work-groups (--wg)
#     [DEVICE <spec>]             --device (default: default)
#     [OPTIONS <arg>...]          more clc-pack arguments
#     [SOURCES <file>...]         more files the pack depends on (the
#                                 manifest, the kernels and what they include
#                                 come from clc-pack's dependency file)
#     [OUTPUT <file>]             default: <build dir>/<name>.clcpack
#     [EMBED [SYMBOL <c-name>] [FORMAT asm|c]])
#
# Builds the pack at build time, again whenever a file it was built from
# changes (clc-pack --depfile), and sets <name>_PACK to its path. With
# EMBED the pack is linked into TARGET: <name>.h (in the build dir, added to
# TARGET's include path) declares SYMBOL (default: <name>) and SYMBOL_size,
# for clcpack_open_memory. Without EMBED, TARGET (when given) depends on the
# pack so that it is built first.

# Functions run under the policies in force where they are defined: with
# CMP0116 (CMake 3.20) the dependency file's absolute paths work with every
# generator; before it, Ninja wants the target as it names the output.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

function(clcpack_add_pack name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EMBED"
    "TARGET;KERNELS_DIR;WG;DEVICE;OUTPUT;SYMBOL;FORMAT" "KERNELS;DEFINES;OPTIONS;SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "clcpack_add_pack(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_KERNELS_DIR)
    set(ARG_KERNELS_DIR "${CMAKE_CURRENT_SOURCE_DIR}/kernels")
  endif()
  get_filename_component(kdir "${ARG_KERNELS_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${kdir}/manifest.txt")
    message(FATAL_ERROR "clcpack_add_pack(${name}): ${kdir}/manifest.txt does not exist")
  endif()
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}.clcpack")
  endif()
  get_filename_component(out "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT ARG_DEVICE)
    set(ARG_DEVICE default)
  endif()
  set(args --kernels "${kdir}" --device "${ARG_DEVICE}")
  foreach(k IN LISTS ARG_KERNELS)
    list(APPEND args --kernel "${k}")
  endforeach()
  foreach(d IN LISTS ARG_DEFINES)
    list(APPEND args -D "${d}")
  endforeach()
  if(ARG_WG)
    list(APPEND args --wg "${ARG_WG}")
  endif()
  list(APPEND args ${ARG_OPTIONS})

  # Makefile generators read a DEPFILE from CMake 3.20 on, Ninja always.
  set(dep_args)
  if(CMAKE_GENERATOR MATCHES "Ninja" OR NOT CMAKE_VERSION VERSION_LESS 3.20)
    set(dep_args DEPFILE "${out}.d")
  else()
    message(WARNING "clcpack_add_pack(${name}): CMake ${CMAKE_VERSION} with ${CMAKE_GENERATOR} "
                    "cannot read dependency files: edit a kernel, then rebuild the pack by hand")
  endif()
  # CMake 3.28 passes make's jobserver on to commands that ask for it.
  if(NOT CMAKE_VERSION VERSION_LESS 3.28)
    list(APPEND dep_args JOB_SERVER_AWARE TRUE)
  endif()
  set(dep_target "${out}")
  if(NOT POLICY CMP0116)
    file(RELATIVE_PATH dep_target "${CMAKE_BINARY_DIR}" "${out}")
  endif()
  add_custom_command(OUTPUT "${out}"
    COMMAND clcpack::clc-pack ${args} -o "${out}" --depfile "${out}.d" -MT "${dep_target}" -q
    DEPENDS "${kdir}/manifest.txt" ${ARG_SOURCES}
    ${dep_args}
    COMMENT "clc-pack: building ${name}.clcpack"
    VERBATIM)
  set(${name}_PACK "${out}" PARENT_SCOPE)

  if(NOT ARG_EMBED)
    add_custom_target(${name}_pack ALL DEPENDS "${out}")
    if(ARG_TARGET)
      add_dependencies(${ARG_TARGET} ${name}_pack)
    endif()
    return()
  endif()

  if(NOT ARG_TARGET)
    message(FATAL_ERROR "clcpack_add_pack(${name}): EMBED needs TARGET")
  endif()
  if(NOT ARG_SYMBOL)
    set(ARG_SYMBOL "${name}")
  endif()
  if(NOT ARG_FORMAT)
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE AND NOT WIN32)
      set(ARG_FORMAT asm)
    else()
      set(ARG_FORMAT c)
    endif()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_embed")
  if(ARG_FORMAT STREQUAL "asm")
    set(src "${dir}/${name}.S")
  else()
    set(src "${dir}/${name}.c")
  endif()
  # embed rewrites its files only when their text changes; the stamp is
  # what the rule makes, so an unchanged pack recompiles nothing.
  add_custom_command(OUTPUT "${dir}/${name}.stamp"
    BYPRODUCTS "${src}" "${dir}/${name}.h"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND clcpack::clc-pack embed "${out}" -o "${src}" --format "${ARG_FORMAT}"
            --symbol "${ARG_SYMBOL}" --header "${dir}/${name}.h" -q
    COMMAND "${CMAKE_COMMAND}" -E touch "${dir}/${name}.stamp"
    DEPENDS "${out}"
    COMMENT "clc-pack: embedding ${name}.clcpack"
    VERBATIM)
  add_custom_target(${name}_embed DEPENDS "${dir}/${name}.stamp")
  add_dependencies(${ARG_TARGET} ${name}_embed)
  target_sources(${ARG_TARGET} PRIVATE "${src}")
  # The .S names the pack's CRC-32, so its text changes whenever the pack's
  # bytes do: watching the .S alone re-assembles it exactly then.
  set_source_files_properties("${src}" PROPERTIES GENERATED TRUE)
  # The .S goes to the C compiler (GCC and Clang assemble it): no need for
  # project(... ASM), which enable_language cannot add from a function.
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  list(FIND langs ASM asm_at)
  if(ARG_FORMAT STREQUAL "asm" AND asm_at EQUAL -1)
    set_source_files_properties("${src}" PROPERTIES LANGUAGE C
                                COMPILE_OPTIONS "-x;assembler-with-cpp")
  endif()
  target_include_directories(${ARG_TARGET} PRIVATE "${dir}")
endfunction()
