/* mpi_locality: where Open MPI thinks its peers are, from the locality the DVM gave it (PMIx
 * PMIX_LOCALITY_STRING, compared by Open MPI itself). Prints
 *   mpi rank R local L core C package P
 * L: OMPI_COMM_WORLD_LOCAL_RANK; C and P: how many ranks of this node share this rank's core and
 * its package, by MPI_Comm_split_type with Open MPI's OMPI_COMM_TYPE_CORE / _SOCKET. Built with
 * Open MPI's mpicc only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int sharing(int type)
{
    MPI_Comm part;
    int size = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, MPI_INFO_NULL, &part);
    if (part == MPI_COMM_NULL) return 0;
    MPI_Comm_size(part, &size);
    MPI_Comm_free(&part);
    return size;
}

int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char* local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int core = sharing(OMPI_COMM_TYPE_CORE);
    int package = sharing(OMPI_COMM_TYPE_SOCKET);
    printf("mpi rank %d local %s core %d package %d\n", rank, local ? local : "?", core, package);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
