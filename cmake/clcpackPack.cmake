# clcpackPack.cmake — clcpack_add_pack(), included by clcpackConfig.cmake
# (docs/CMAKE.md).
#
# Your own .cl files, as `clc-pack FILE.cl ...` packs them (no manifest):
#
# clcpack_add_pack(<name>
#     SOURCES <file.cl>...          one program per file (relative to the
#                                   calling CMakeLists.txt's folder)
#     [PROGRAMS <NAME=A,B>...]      files A, B as one program (--program)
#     [DEFINES <NAME=LIST>...]      -D NAME=LIST each ("T=float,half")
#     [DERIVE <NAME=EXPR>...]       --derive, in order
#     [WHERE <expr>...]             --where
#     [WORK_GROUPS <wg>...]         --wg: 8x8 16x16, or one expression a
#                                   dimension ("TS,TS/WPT")
#     [WG_DEFINES]                  --wg-defines
#     [VARIANTS <A=1,B=x>...]       --variant
#     [DEFAULTS <A=1,WG=16x16>...]  --default
#     [KERNELS <name>...]           --kernel: kernels every program holds
#     [INCLUDE_DIRECTORIES <dir>...] -I
#     [COMPILE_OPTIONS <opt>...]    build options (--options, joined by spaces)
#     [CHECK_COMMAND <line>]        --check-cmd (run in the build folder)
#     [TUNE_COMMAND <line>]         --tune-cmd
#     [CHECK_TIMEOUT <s>]           --check-timeout
#     [PROGRAM <file.cl | NAME=A,B>  a program with axes of its own (repeat
#        [DEFINES ...] [DERIVE ...]  it for each); its DEFINES ... replace or
#        [WHERE ...] [WORK_GROUPS ...] add to those above as on the command
#        [VARIANTS ...] [DEFAULTS ...] line: clc-pack ... FILE.cl -D ... --wg ...
#        [KERNELS ...] [CHECK_COMMAND <line>] [TUNE_COMMAND <line>]]...
#     common arguments below)
#
# A kernels folder with a manifest.txt (kernel and program blocks):
#
# clcpack_add_pack(<name>
#     [KERNELS_DIR <dir>]           default: kernels/ beside the calling
#                                   CMakeLists.txt
#     [KERNELS <name>...]           kernels or program blocks (--kernel)
#     [DEFINES <NAME=LIST>...] [WORK_GROUPS <wg>...]
#     [SOURCES <file>...]           kept from 1.0: more files it depends on
#                                   (unless one ends in .cl and KERNELS_DIR
#                                   is not given, which is the form above)
#     common arguments)
#
# Common: [TARGET <target>] (the application) [DEVICE <spec>] [OPTIONS
# <arg>...] (more clc-pack arguments) [DEPENDS <file>...] (more files the
# pack depends on) [OUTPUT <file>] (default <build dir>/<name>.clcpack)
# [EMBED [SYMBOL <c-name>] [FORMAT asm|c]]. WG <list> is WORK_GROUPS's
# spelling from 1.0.
#
# Builds the pack at build time, again whenever a file it was built from
# changes (clc-pack --depfile), and sets <name>_PACK to its path. With
# EMBED the pack is linked into TARGET: <name>.h (in the build dir, added to
# TARGET's include path) declares SYMBOL (default: <name>), SYMBOL_size and
# SYMBOL_sha256. Without EMBED, TARGET (when given) depends on the pack so
# that it is built first. A misspelt keyword (WORKGROUPS) is a configure
# error naming it; EMBED in a project without C assembles with an enabled
# ASM or a GCC/Clang C++ compiler, else fails naming project(app C CXX).

# Functions run under the policies in force where they are defined: with
# CMP0116 (CMake 3.20) the dependency file's absolute paths work with every
# generator; before it, Ninja wants the target as it names the output.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

# What only the direct form (SOURCES with .cl files, PROGRAMS) takes:
# clc-pack refuses them with a kernels folder.
set(_CLCPACK_DIRECT_ONLY PROGRAMS DERIVE WHERE WG_DEFINES VARIANTS DEFAULTS INCLUDE_DIRECTORIES
    COMPILE_OPTIONS CHECK_COMMAND TUNE_COMMAND CHECK_TIMEOUT)

# What a PROGRAM group takes: its axes (docs/CLI.md, "Several programs").
set(_CLCPACK_PROGRAM_ONE CHECK_COMMAND TUNE_COMMAND)
set(_CLCPACK_PROGRAM_MULTI DEFINES DERIVE WHERE WORK_GROUPS VARIANTS DEFAULTS KERNELS)

# path relative to the calling folder, made absolute: the pack's command
# runs in the build folder, and the depfile then names the same files.
function(_clcpack_abs out path)
  get_filename_component(p "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(${out} "${p}" PARENT_SCOPE)
endfunction()

# The list keywords of the axes and the clc-pack option of each value.
set(_CLCPACK_AXIS_OPTIONS DERIVE --derive WHERE --where VARIANTS --variant DEFAULTS --default
    KERNELS --kernel DEFINES -D)

# The axis options of ARG_* (every program's, or a PROGRAM group's own)
# appended to the list named out_var.
macro(_clcpack_axis_args out_var)
  list(LENGTH _CLCPACK_AXIS_OPTIONS _n)
  math(EXPR _n "${_n} - 2")
  foreach(_i RANGE 0 ${_n} 2)
    list(GET _CLCPACK_AXIS_OPTIONS ${_i} _kw)
    math(EXPR _i "${_i} + 1")
    list(GET _CLCPACK_AXIS_OPTIONS ${_i} _opt)
    foreach(_v IN LISTS ARG_${_kw})
      list(APPEND ${out_var} ${_opt} "${_v}")
    endforeach()
  endforeach()
  if(ARG_WORK_GROUPS)
    string(REPLACE ";" "," wg "${ARG_WORK_GROUPS}")
    list(APPEND ${out_var} --wg "${wg}")
  endif()
  if(ARG_CHECK_COMMAND)
    list(APPEND ${out_var} --check-cmd "${ARG_CHECK_COMMAND}")
  endif()
  if(ARG_TUNE_COMMAND)
    list(APPEND ${out_var} --tune-cmd "${ARG_TUNE_COMMAND}")
  endif()
endmacro()

# A program: a .cl file, or NAME=A,B (--program), its files made absolute;
# appended to the list named out_var, its files to deps.
macro(_clcpack_program_arg out_var prog)
  string(FIND "${prog}" "=" eq)
  if(eq EQUAL -1)
    _clcpack_abs(p "${prog}")
    list(APPEND ${out_var} "${p}")
    list(APPEND deps "${p}")
  else()
    if(eq LESS 1)
      message(FATAL_ERROR "clcpack_add_pack(${name}): PROGRAMS '${prog}' is not NAME=FILE,FILE...")
    endif()
    string(SUBSTRING "${prog}" 0 ${eq} pname)
    math(EXPR eq "${eq} + 1")
    string(SUBSTRING "${prog}" ${eq} -1 pfiles)
    string(REPLACE "," ";" pfiles "${pfiles}")
    set(abs_files)
    foreach(f IN LISTS pfiles)
      _clcpack_abs(p "${f}")
      list(APPEND abs_files "${p}")
      list(APPEND deps "${p}")
    endforeach()
    string(REPLACE ";" "," abs_files "${abs_files}")
    list(APPEND ${out_var} --program "${pname}=${abs_files}")
  endif()
endmacro()

# One PROGRAM group (its words after PROGRAM): the program and its own
# axes, in out_var; the files it names in deps_var. A misspelt or unknown
# keyword in it is a configure error naming the program.
function(_clcpack_program_group name out_var deps_var)
  set(group ${ARGN})
  list(GET group 0 prog)
  list(REMOVE_AT group 0)
  cmake_parse_arguments(ARG "" "${_CLCPACK_PROGRAM_ONE}" "${_CLCPACK_PROGRAM_MULTI}" ${group})
  _clcpack_check_keywords("${name}: PROGRAM ${prog}" "${_CLCPACK_PROGRAM_ONE};${_CLCPACK_PROGRAM_MULTI}")
  if(ARG_UNPARSED_ARGUMENTS)
    string(REPLACE ";" " " words "${ARG_UNPARSED_ARGUMENTS}")
    string(REPLACE ";" " " takes "${_CLCPACK_PROGRAM_MULTI};${_CLCPACK_PROGRAM_ONE}")
    message(FATAL_ERROR "clcpack_add_pack(${name}): PROGRAM ${prog}: unknown arguments: "
                        "${words} (a PROGRAM takes ${takes})")
  endif()
  set(out)
  set(deps)
  _clcpack_program_arg(out "${prog}")
  _clcpack_axis_args(out)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${deps_var} "${deps}" PARENT_SCOPE)
endfunction()

# The direct form's clc-pack arguments (in args: every program's options,
# then the programs, each followed by its own; clc-pack reads them so) and
# the files the rule depends on from the start (in deps; the depfile adds
# what they include).
macro(_clcpack_direct_args)
  _clcpack_axis_args(args)
  set(programs)
  foreach(s IN LISTS ARG_SOURCES)
    _clcpack_program_arg(programs "${s}")
  endforeach()
  foreach(prog IN LISTS ARG_PROGRAMS)
    if(NOT prog MATCHES "^[^=]+=")
      message(FATAL_ERROR "clcpack_add_pack(${name}): PROGRAMS '${prog}' is not NAME=FILE,FILE...")
    endif()
    _clcpack_program_arg(programs "${prog}")
  endforeach()
  foreach(g IN LISTS groups)
    _clcpack_program_group("${name}" own own_deps ${_clcpack_group_${g}})
    list(APPEND programs ${own})
    list(APPEND deps ${own_deps})
  endforeach()
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    _clcpack_abs(p "${dir}")
    list(APPEND args -I "${p}")
  endforeach()
  if(ARG_COMPILE_OPTIONS)
    string(REPLACE ";" " " opts "${ARG_COMPILE_OPTIONS}")
    list(APPEND args "--options=${opts}")
  endif()
  if(ARG_WG_DEFINES)
    list(APPEND args --wg-defines)
  endif()
  if(ARG_CHECK_TIMEOUT)
    list(APPEND args --check-timeout "${ARG_CHECK_TIMEOUT}")
  endif()
  list(APPEND args --device "${ARG_DEVICE}" ${ARG_OPTIONS} ${programs})
endmacro()

# The manifest form's: the folder and its manifest; SOURCES, as in 1.0,
# are more files the pack depends on.
macro(_clcpack_manifest_args)
  if(groups)
    message(FATAL_ERROR "clcpack_add_pack(${name}): PROGRAM applies to .cl files, not to a "
                        "kernels folder; a manifest's program block says it there "
                        "(docs/MANIFEST.md, \"Program blocks\")")
  endif()
  foreach(k IN LISTS _CLCPACK_DIRECT_ONLY)
    if(DEFINED ARG_${k} AND NOT "${ARG_${k}}" STREQUAL "" AND NOT "${ARG_${k}}" STREQUAL "FALSE")
      message(FATAL_ERROR "clcpack_add_pack(${name}): ${k} applies to .cl files given in SOURCES "
                          "(or PROGRAMS), not to a kernels folder; a manifest's program block "
                          "says it there (docs/MANIFEST.md, \"Program blocks\")")
    endif()
  endforeach()
  if(NOT ARG_KERNELS_DIR)
    set(ARG_KERNELS_DIR "${CMAKE_CURRENT_SOURCE_DIR}/kernels")
  endif()
  _clcpack_abs(kdir "${ARG_KERNELS_DIR}")
  if(NOT EXISTS "${kdir}/manifest.txt")
    message(FATAL_ERROR "clcpack_add_pack(${name}): ${kdir}/manifest.txt does not exist "
                        "(give your .cl files in SOURCES to pack them without a manifest)")
  endif()
  list(APPEND args --kernels "${kdir}")
  list(APPEND deps "${kdir}/manifest.txt")
  foreach(s IN LISTS ARG_SOURCES)
    _clcpack_abs(p "${s}")
    list(APPEND deps "${p}")
  endforeach()
  list(APPEND args --device "${ARG_DEVICE}")
  foreach(k IN LISTS ARG_KERNELS)
    list(APPEND args --kernel "${k}")
  endforeach()
  foreach(d IN LISTS ARG_DEFINES)
    list(APPEND args -D "${d}")
  endforeach()
  if(ARG_WORK_GROUPS)
    string(REPLACE ";" "," wg "${ARG_WORK_GROUPS}")
    list(APPEND args --wg "${wg}")
  endif()
  list(APPEND args ${ARG_OPTIONS})
endmacro()

# EMBED: clc-pack embed's .S (or .c) and header, compiled into TARGET.
function(_clcpack_embed name out target symbol format)
  # Who compiles the embedded pack: the C compiler (the .c, or the .S with
  # GCC and Clang), else an enabled ASM language, else a GCC or Clang C++
  # compiler, which assembles a .S as its C driver does. A project(app CXX)
  # has no C compiler, and a function cannot enable_language: without one
  # of these, stop here naming the fix rather than at build time.
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  list(FIND langs C c_at)
  list(FIND langs ASM asm_at)
  set(gnu_like "GNU|Clang")
  set(asm_by "")
  if(NOT c_at EQUAL -1)
    if(CMAKE_C_COMPILER_ID MATCHES "${gnu_like}" AND NOT APPLE AND NOT WIN32)
      set(asm_by C)
    endif()
  elseif(NOT asm_at EQUAL -1)
    set(asm_by ASM)
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "${gnu_like}" AND NOT APPLE AND NOT WIN32)
    set(asm_by CXX)
  endif()
  if(NOT format)
    if(asm_by)
      set(format asm)
    else()
      set(format c)
    endif()
  endif()
  if(format STREQUAL "c" AND c_at EQUAL -1)
    message(FATAL_ERROR "clcpack_add_pack(${name}): EMBED with FORMAT c needs the C language, "
            "which this project does not enable: add C to project() (project(app C CXX)) or "
            "call enable_language(C) before clcpack_add_pack")
  endif()
  if(format STREQUAL "asm" AND NOT asm_by AND c_at EQUAL -1)
    message(FATAL_ERROR "clcpack_add_pack(${name}): EMBED needs a C compiler or an assembler "
            "for the embedded pack, and this project enables neither: add C to project() "
            "(project(app C CXX)) or call enable_language(C) before clcpack_add_pack")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_embed")
  if(format STREQUAL "asm")
    set(src "${dir}/${name}.S")
  else()
    set(src "${dir}/${name}.c")
  endif()
  # embed rewrites its files only when their text changes; the stamp is
  # what the rule makes, so an unchanged pack recompiles nothing.
  # The installed library's codecs (clcpackConfig.cmake): a pack it could
  # not read is refused here, at build time.
  set(codecs)
  if(CLCPACK_LOADER_CODECS)
    set(codecs --loader-codecs "${CLCPACK_LOADER_CODECS}")
  endif()
  add_custom_command(OUTPUT "${dir}/${name}.stamp"
    BYPRODUCTS "${src}" "${dir}/${name}.h"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND clcpack::clc-pack embed "${out}" -o "${src}" --format "${format}"
            --symbol "${symbol}" --header "${dir}/${name}.h" ${codecs} -q
    COMMAND "${CMAKE_COMMAND}" -E touch "${dir}/${name}.stamp"
    DEPENDS "${out}"
    COMMENT "clc-pack: embedding ${name}.clcpack"
    VERBATIM)
  add_custom_target(${name}_embed DEPENDS "${dir}/${name}.stamp")
  add_dependencies(${target} ${name}_embed)
  target_sources(${target} PRIVATE "${src}")
  # The .S names the pack's CRC-32, so its text changes whenever the pack's
  # bytes do: watching the .S alone re-assembles it exactly then.
  set_source_files_properties("${src}" PROPERTIES GENERATED TRUE)
  # The .S goes to the C (or C++) compiler, GCC and Clang assembling it: no
  # need for project(... ASM), which enable_language cannot add from a
  # function.
  if(format STREQUAL "asm" AND asm_at EQUAL -1)
    if(c_at EQUAL -1)
      set(lang CXX)
    else()
      set(lang C)
    endif()
    set_source_files_properties("${src}" PROPERTIES LANGUAGE ${lang}
                                COMPILE_OPTIONS "-x;assembler-with-cpp")
  endif()
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()

# A misspelt keyword (WORKGROUPS for WORK_GROUPS) is no keyword to
# cmake_parse_arguments: it becomes a value of the list keyword before it
# (SOURCES a.cl WORKGROUPS 16x16 asks for a source file "WORKGROUPS"), or an
# unparsed argument. Each argument that spells a keyword but for '_' and
# case, or that is a keyword-like word (capitals and '_') where no such
# value belongs, is refused here, at configure time, naming the keyword.
# DEFINES (-D USE_LOCAL), KERNELS (a kernel FIR) and WHERE (USE_LOCAL, an
# expression) take such words.
function(_clcpack_check_keywords name keywords)
  set(loose)
  foreach(k IN LISTS keywords)
    string(REPLACE "_" "" l "${k}")
    list(APPEND loose "${l}")
  endforeach()
  set(lists UNPARSED_ARGUMENTS SOURCES DEPENDS PROGRAMS DERIVE WHERE WORK_GROUPS VARIANTS
            DEFAULTS INCLUDE_DIRECTORIES OPTIONS COMPILE_OPTIONS DEFINES KERNELS)
  foreach(list IN LISTS lists)
    foreach(a IN LISTS ARG_${list})
      string(TOUPPER "${a}" up)
      string(REPLACE "_" "" up "${up}")
      list(FIND loose "${up}" at)
      set(hint "")
      if(NOT at EQUAL -1)
        list(GET keywords ${at} near)
        set(hint "; did you mean ${near}?")
      elseif(list MATCHES "^(DEFINES|KERNELS|WHERE)$" OR NOT a MATCHES "^[A-Z][A-Z_]*[A-Z]$")
        continue()
      endif()
      if(list STREQUAL "UNPARSED_ARGUMENTS")
        set(where "")
      else()
        set(where " (read as a value of ${list})")
      endif()
      message(FATAL_ERROR "clcpack_add_pack(${name}): unknown keyword ${a}${where}${hint}")
    endforeach()
  endforeach()
endfunction()

# Splits the arguments at each PROGRAM: the group runs to the next PROGRAM
# or to a keyword no PROGRAM takes (TARGET, EMBED, ...), whose words are
# again the call's own (kw_var names the list of those keywords). Sets, in
# the caller, groups (their numbers, from 1: `if(groups)` holds when there
# is one), _clcpack_group_N (the words after each PROGRAM) and top (the
# rest).
function(_clcpack_split_programs kw_var)
  set(groups)
  set(top)
  set(_in -1)
  set(_n 1)
  foreach(a IN LISTS ARGN)
    if(a STREQUAL "PROGRAM")
      set(_in ${_n})
      set(_clcpack_group_${_n})
      list(APPEND groups ${_n})
      math(EXPR _n "${_n} + 1")
      continue()
    endif()
    list(FIND _CLCPACK_PROGRAM_ONE "${a}" _own1)
    list(FIND _CLCPACK_PROGRAM_MULTI "${a}" _own2)
    list(FIND ${kw_var} "${a}" _top)
    if(NOT _in EQUAL -1 AND _own1 EQUAL -1 AND _own2 EQUAL -1 AND NOT _top EQUAL -1)
      set(_in -1)
      list(APPEND top "${a}")
    elseif(_in EQUAL -1)
      list(APPEND top "${a}")
    else()
      list(APPEND _clcpack_group_${_in} "${a}")
    endif()
  endforeach()
  foreach(g IN LISTS groups)
    if(NOT _clcpack_group_${g})
      message(FATAL_ERROR "clcpack_add_pack(${name}): PROGRAM needs a .cl file (or NAME=A,B)")
    endif()
    set(_clcpack_group_${g} "${_clcpack_group_${g}}" PARENT_SCOPE)
  endforeach()
  set(groups "${groups}" PARENT_SCOPE)
  set(top "${top}" PARENT_SCOPE)
endfunction()

function(clcpack_add_pack name)
  set(options EMBED WG_DEFINES)
  set(one TARGET KERNELS_DIR WG DEVICE OUTPUT SYMBOL FORMAT CHECK_COMMAND TUNE_COMMAND CHECK_TIMEOUT)
  set(multi KERNELS DEFINES OPTIONS SOURCES DEPENDS PROGRAMS DERIVE WHERE WORK_GROUPS VARIANTS
            DEFAULTS INCLUDE_DIRECTORIES COMPILE_OPTIONS)
  set(groups)
  list(FIND ARGN PROGRAM at)
  if(NOT at EQUAL -1)
    set(top_keywords ${options} ${one} ${multi})
    _clcpack_split_programs(top_keywords ${ARGN})
    cmake_parse_arguments(ARG "${options}" "${one}" "${multi}" ${top})
  else()
    cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "${one}" "${multi}")
  endif()
  _clcpack_check_keywords("${name}" "${options};${one};${multi};PROGRAM")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "clcpack_add_pack(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # The direct form: .cl files in SOURCES, or PROGRAMS, and no KERNELS_DIR
  # (with KERNELS_DIR, SOURCES keeps its 1.0 meaning: more dependencies).
  set(direct FALSE)
  if(NOT ARG_KERNELS_DIR)
    if(ARG_PROGRAMS OR groups)
      set(direct TRUE)
    endif()
    foreach(s IN LISTS ARG_SOURCES)
      if(s MATCHES "\\.cl$")
        set(direct TRUE)
      endif()
    endforeach()
  endif()
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}.clcpack")
  endif()
  get_filename_component(out "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT ARG_DEVICE)
    set(ARG_DEVICE default)
  endif()
  set(args)
  set(deps)
  list(APPEND ARG_WORK_GROUPS ${ARG_WG})
  if(direct)
    _clcpack_direct_args()
  else()
    _clcpack_manifest_args()
  endif()
  foreach(f IN LISTS ARG_DEPENDS)
    _clcpack_abs(p "${f}")
    list(APPEND deps "${p}")
  endforeach()

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
    # CHECK_COMMAND and TUNE_COMMAND run where clc-pack starts: here, so that
    # "./check.sh" names a script beside this CMakeLists.txt, as a path in
    # SOURCES does (every path clc-pack is given is absolute).
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    DEPENDS ${deps}
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
  _clcpack_embed("${name}" "${out}" "${ARG_TARGET}" "${ARG_SYMBOL}" "${ARG_FORMAT}")
endfunction()
