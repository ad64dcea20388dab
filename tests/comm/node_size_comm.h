// node_size_comm.h: RAVEL_NODE_SIZE=value (unset for nullptr), and a
// duplicate of MPI_COMM_WORLD made under it, returning errors instead of
// aborting.  The variable is read when a communicator's context is made,
// so a fresh duplicate sees each value.
#ifndef RAVEL_TEST_NODE_SIZE_COMM_H
#define RAVEL_TEST_NODE_SIZE_COMM_H

#include <mpi.h>

#include <cstdlib>

inline void set_node_size(const char *value)
{
    if (value)
        setenv("RAVEL_NODE_SIZE", value, 1);
    else
        unsetenv("RAVEL_NODE_SIZE");
}

inline MPI_Comm comm_under(const char *value)
{
    set_node_size(value);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

#endif
