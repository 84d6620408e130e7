/* A PMI-2 program built on Slurm's client library (Debian's libpmi2-0-dev, -lpmi2), which speaks the
 * PMI-2 wire protocol over PMI_FD: init, the job's id, PMI_process_mapping, a node attribute put by
 * local rank 0 and waited for by the others, kvs put/fence/get of the next rank's key, finalize.
 * Prints "pmi2lib rank R of N next=V node=A mapping=M". With the argument "abort", rank 1 (rank 0
 * if alone) calls PMI2_Abort instead. */
#include <slurm/pmi2.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
    int spawned = 0, size = 0, rank = 0, appnum = 0;
    if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
        printf("pmi2lib: PMI2_Init failed\n");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "abort") == 0 && rank == (size > 1 ? 1 : 0)) PMI2_Abort(1, "pmi2lib aborts");
    char jobid[256] = "", mapping[PMI2_MAX_ATTRVALUE] = "", key[64], value[PMI2_MAX_VALLEN] = "";
    char node[PMI2_MAX_ATTRVALUE] = "";
    int found = 0, len = 0;
    PMI2_Job_GetId(jobid, sizeof(jobid));
    PMI2_Info_GetJobAttr("PMI_process_mapping", mapping, sizeof(mapping), &found);
    if (rank == 0) PMI2_Info_PutNodeAttr("demo", "from-rank-0");
    snprintf(key, sizeof(key), "k%d", rank);
    snprintf(value, sizeof(value), "v%d", rank);
    PMI2_KVS_Put(key, value);
    PMI2_KVS_Fence();
    snprintf(key, sizeof(key), "k%d", (rank + 1) % size);
    value[0] = '\0';
    if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, value, sizeof(value), &len) != PMI2_SUCCESS) strcpy(value, "(none)");
    /* Local rank 0 of the node may not be rank 0 on other nodes: only those sharing rank 0's node wait. */
    PMI2_Info_GetNodeAttr("demo", node, sizeof(node), &found, 0);
    printf("pmi2lib rank %d of %d next=%s node=%s mapping=%s\n", rank, size, value, found ? node : "-", mapping);
    fflush(stdout);
    PMI2_Finalize();
    return 0;
}
