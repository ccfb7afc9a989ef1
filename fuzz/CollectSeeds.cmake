# Copies every .tn file under FIXTURES_DIR (recursively), and the hand-written extra seeds
# in EXTRA_DIR (optional, fuzz/seeds/), into SEED_DIR. The relative path is flattened into
# the file name (gr/foo.tn -> fixtures__gr__foo.tn) so equal names cannot collide.
# Runs at build time, so fixtures added after configuring are picked up.
#
#   cmake -DFIXTURES_DIR=<dir> [-DEXTRA_DIR=<dir>] -DSEED_DIR=<dir> -P CollectSeeds.cmake
if(NOT FIXTURES_DIR OR NOT SEED_DIR)
  message(FATAL_ERROR "CollectSeeds.cmake needs -DFIXTURES_DIR=... and -DSEED_DIR=...")
endif()
file(REMOVE_RECURSE "${SEED_DIR}")
file(MAKE_DIRECTORY "${SEED_DIR}")

function(collect dir prefix out_count)
  set(count 0)
  if(IS_DIRECTORY "${dir}")
    file(GLOB_RECURSE seeds RELATIVE "${dir}" "${dir}/*.tn")
    list(SORT seeds)
    foreach(rel IN LISTS seeds)
      string(REPLACE "/" "__" flat "${prefix}__${rel}")
      configure_file("${dir}/${rel}" "${SEED_DIR}/${flat}" COPYONLY)
      math(EXPR count "${count} + 1")
    endforeach()
  endif()
  set(${out_count} ${count} PARENT_SCOPE)
endfunction()

collect("${FIXTURES_DIR}" fixtures fixture_count)
set(extra_count 0)
if(EXTRA_DIR)
  collect("${EXTRA_DIR}" extra extra_count)
endif()
message(STATUS "Fuzzer seeds: ${fixture_count} from ${FIXTURES_DIR}, ${extra_count} from "
               "${EXTRA_DIR} -> ${SEED_DIR}")
