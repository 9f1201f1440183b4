# The start-up layout of the vwheel executable: the functions its short commands run are placed
# together at the start of the text, in the order of apps/vwheel/startup.order (written by
# scripts/startup-order), by compiling each function into its own section and linking with lld's
# --symbol-ordering-file (GNU ld 2.40 has no such option).
#
# Why: a short command's time is mostly the kernel's, and much of that is page faults. Laid out
# as the compiler emits them, the ~250-570 functions that `label` or `rank` run were spread over
# 92 of the text's 64 KiB fault-around windows; each first touch of one is a fault. Ordered,
# `label` took 83 page faults instead of 96 and `rank` 117 instead of 149; medians of 300 runs
# in one hyperfine run on the 2-core VM (kernel 6.18): `label` 3.60 -> 2.96 ms, `rank` 5.28 ->
# 4.05 ms, where /bin/true took 1.76 ms (bench/startup.sh).
#
# Off in sanitizer and fuzzer trees (their binaries are not the ones timed), and where lld is
# missing: the build then works as before, with a note.
option(VWHEEL_STARTUP_ORDER "Link vwheel with the functions of its short commands placed together (needs lld)" ON)
set(VWHEEL_STARTUP_ORDER_FILE ${PROJECT_SOURCE_DIR}/apps/vwheel/startup.order)
set(VWHEEL_STARTUP_ORDER_ACTIVE OFF)
if(VWHEEL_STARTUP_ORDER AND NOT VWHEEL_SANITIZE AND NOT VWHEEL_BUILD_FUZZERS)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" VWHEEL_HAVE_LLD)
  if(VWHEEL_HAVE_LLD)
    # Every component's code too, not only the CLI's: the order names functions of all of them.
    add_compile_options(-ffunction-sections)
    set(VWHEEL_STARTUP_ORDER_ACTIVE ON)
  else()
    message(STATUS "lld not found: vwheel is linked without its start-up order (apt-get install lld)")
  endif()
endif()

# Applies the order to an executable (vwheel).
function(vwheel_startup_layout target)
  if(VWHEEL_STARTUP_ORDER_ACTIVE)
    target_link_options(${target} PRIVATE -fuse-ld=lld "LINKER:--symbol-ordering-file=${VWHEEL_STARTUP_ORDER_FILE}"
      # Names the code no longer has are skipped; test_startup_layout.py says when too many are.
      "LINKER:--no-warn-symbol-ordering")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${VWHEEL_STARTUP_ORDER_FILE})
  endif()
endfunction()
