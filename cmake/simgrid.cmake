# simgrid.cmake: build for SimGrid SMPI (-DRAVEL_SIMGRID=ON, own build dir).
#
# Included by the top-level CMakeLists.txt BEFORE project(), because the C
# compiler must be chosen before the language is enabled.  smpicc compiles
# unmodified MPI code against SimGrid's MPI and links "executables" as shared
# objects that smpirun loads once per simulated rank, copying each so that
# every rank has its own globals (smpi/privatization).
#
# Only the library and ravel-a2a are meant to be built here
# (`cmake --build <dir> --target ravel-a2a`); tests are off.  ravel-a2a links
# the library's object files directly instead of libravel.so: smpirun
# privatizes the program's globals but not those of the shared libraries it
# loads, and libravel's globals (its statistics, its keyval, its tunables)
# must be per rank -- with a shared libravel the ranks would share them and
# the simulation deadlocks.  See bench/README.md.
find_program(RAVEL_SMPICC smpicc)
find_program(RAVEL_SMPIRUN smpirun)
if(NOT RAVEL_SMPICC OR NOT RAVEL_SMPIRUN)
  message(FATAL_ERROR "RAVEL_SIMGRID=ON needs smpicc and smpirun "
                      "(Debian package libsimgrid-dev); not found in PATH")
endif()
set(CMAKE_C_COMPILER ${RAVEL_SMPICC} CACHE FILEPATH "SimGrid's smpicc" FORCE)
set(RAVEL_BUILD_TESTS OFF CACHE BOOL "no tests in the SimGrid build" FORCE)
# smpicc compiles the MPI headers itself: FindMPI must not look elsewhere.
set(MPI_C_COMPILER ${RAVEL_SMPICC} CACHE FILEPATH "" FORCE)
set(MPI_SKIP_COMPILER_WRAPPER OFF CACHE BOOL "" FORCE)
