/* mpi_connect: MPI_Comm_accept / MPI_Comm_connect between two jobs.
 *   mpi_connect accept FILE   rank 0 opens a port and writes its name to FILE; the job accepts
 *   mpi_connect connect FILE  waits (at most 30 s) for FILE, then the job connects to that port
 * Both sides then do an MPI_Allreduce of 1 over the merged communicator (the sum of both job
 * sizes) and rank 0 of each prints "mpi <accept|connect> ok total T". Built with mpicc when it
 * is installed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    char port[MPI_MAX_PORT_NAME] = "";
    int rank, size, remote = 0, total = 0, one = 1;
    MPI_Comm inter, merged;
    if (argc != 3 || (strcmp(argv[1], "accept") != 0 && strcmp(argv[1], "connect") != 0)) {
        fprintf(stderr, "mpi_connect: error: usage: mpi_connect accept|connect FILE\n");
        return 1;
    }
    int accepting = strcmp(argv[1], "accept") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        if (accepting) {
            MPI_Open_port(MPI_INFO_NULL, port);
            char tmp[4096];
            snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
            FILE* f = fopen(tmp, "w");
            if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 || rename(tmp, argv[2]) != 0) {
                fprintf(stderr, "mpi_connect: error: cannot write the port to %s\n", argv[2]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            FILE* f = NULL;
            for (int tries = 0; !(f = fopen(argv[2], "r")) && tries < 600; ++tries) usleep(50000);
            if (!f || !fgets(port, sizeof(port), f)) {
                fprintf(stderr, "mpi_connect: error: no port name in %s after 30 s\n", argv[2]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fclose(f);
            port[strcspn(port, "\n")] = '\0';
        }
    }
    if (accepting) {
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    } else {
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    }
    MPI_Comm_remote_size(inter, &remote);
    MPI_Intercomm_merge(inter, !accepting, &merged);
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
    if (total != size + remote) {
        fprintf(stderr, "mpi_connect: error: the merged allreduce gave %d, expected %d\n", total, size + remote);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("mpi %s ok total %d\n", argv[1], total);
    fflush(stdout);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (accepting && rank == 0) MPI_Close_port(port);
    MPI_Finalize();
    return 0;
}
