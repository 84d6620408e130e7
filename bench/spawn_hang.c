/* spawn_hang: the spawn of issue 44 item 5, once (bench/spawn-hang runs it in a loop).
 *   spawn_hang NODE_A NODE_B   parents: rank 0 spawns, on MPI_COMM_SELF, 4 children with
 *                              MPI_Comm_spawn_multiple (2 apps, each forced with the "host" info
 *                              onto NODE_A and NODE_B: 2 children each) while every other rank asks,
 *                              on MPI_COMM_SELF too, for more children than the DVM has slots, which
 *                              fails (MPI_ERRORS_RETURN); children: MPI_Init (where Open MPI 4.1's
 *                              dpm connects them to their parent with PMIx_Connect), a barrier over
 *                              the merged communicator, disconnect.
 * Rank 0 prints "spawn_hang ok children 4 total 5"; each other parent "spawn_hang rank R refused"
 * (its spawn failed, as meant) or "spawn_hang rank R spawned" (it should not have). Built with
 * mpicc.openmpi. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
    MPI_Comm parent, inter, merged;
    int rank, one = 1, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) { /* a child */
        MPI_Intercomm_merge(parent, 1, &merged);
        MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "spawn_hang: error: usage: spawn_hang NODE_A NODE_B\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (rank == 0) {
        char* commands[2] = {argv[0], argv[0]};
        int counts[2] = {2, 2};
        MPI_Info infos[2];
        for (int i = 0; i < 2; ++i) {
            MPI_Info_create(&infos[i]);
            MPI_Info_set(infos[i], "host", argv[1 + i]);
        }
        int errs[4];
        int rc = MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, counts, infos, 0, MPI_COMM_SELF, &inter, errs);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "spawn_hang: error: rank 0's Spawn_multiple of 4 failed (%d)\n", rc);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&inter);
        printf("spawn_hang ok children 4 total %d\n", total);
    } else {
        int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1000, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                                MPI_ERRCODES_IGNORE);
        if (rc == MPI_SUCCESS) {
            printf("spawn_hang rank %d spawned\n", rank);
            MPI_Comm_disconnect(&inter);
        } else {
            printf("spawn_hang rank %d refused\n", rank);
        }
    }
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
