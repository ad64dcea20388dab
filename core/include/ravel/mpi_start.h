/* ravel/mpi_start.h: starting MPI the way ravel's programs do.
 *
 * When every rank of the job runs on this node, two of the things MPICH's
 * MPI_Init sets up serve only jobs that span nodes, and both cost start-up
 * time that the smallest closures feel (TC of OL.cedge is 0.02 s of work
 * in a run of 0.04):
 *
 *  - hwloc discovers the machine, its PCI devices included, by reading
 *    each device's configuration space under /sys: on the benchmark VM,
 *    whose hypervisor traps those reads, that was 0.02 of the 0.05 s two
 *    ranks took to start (bench/results/peers/README.md, "The time floor
 *    of an MPI program").  MPICH needs the devices only to place a rank
 *    near its network card and for MPI_Comm_split_type's hardware hints,
 *    which ravel does not use.  HWLOC_COMPONENTS=-linux:pci skips them.
 *  - UCX (MPICH's ch4:ucx netmod) opens every transport it has, each with
 *    its buffers: TCP sockets on every interface, and shared memory twice
 *    (posix and sysv, the same protocol; posix writes its segments as it
 *    creates them).  Two ranks on one node talk through sysv for small
 *    messages and cma (process_vm_readv) for large ones either way: UCX's
 *    own log (UCX_LOG_LEVEL=info) gives the same lanes, tag(sysv cma),
 *    with the default and with UCX_TLS=self,sysv,cma.  The empty MPI
 *    program started in 0.025 s instead of 0.029 with it, and each rank
 *    held 2 MB less (relalg/README.md, "Only the transports one node
 *    uses").
 *  - Even so UCX loads its InfiniBand modules (libuct_ib, librdmacm, and
 *    through them libibverbs and libnl), and the sysv transport grows its
 *    pool of receive buffers 512 segments of 8 KiB at a time, 4 MiB of
 *    room of which each rank wrote some 2 MiB.  Leaving the modules out
 *    (UCX_MODULES=^ib,rdmacm, which UCX reads before main, so it is set
 *    through UCX's own setter) and UCX_SYSV_RX_BUFS_GROW=64 took each
 *    rank of the empty MPI program from 11.3 to 8.8 MiB, and
 *    ego-Facebook's closure at 2 ranks from 49 to 44 MiB in all, at the
 *    same time (relalg/README.md, "UCX's InfiniBand modules and receive
 *    pool left small").  The pool still grows when more messages wait; a
 *    segment keeps its size, so which messages UCX copies through it does
 *    not change.
 *
 * So ravel's programs start MPI with these set when the launcher says every
 * rank is on this node, or there is no launcher; a variable the user has
 * set, even empty, is left as it is, and UCX_MODULES is set only with
 * UCX_TLS (a user's own transports may need the InfiniBand modules). */
#ifndef RAVEL_MPI_START_H
#define RAVEL_MPI_START_H

#ifdef __cplusplus
extern "C" {
#endif

/* HWLOC_COMPONENTS on one node: hwloc's Linux PCI phase left out. */
#define RAVEL_HWLOC_SKIP_PCI "-linux:pci"
/* UCX_TLS on one node: a rank to itself, shared memory, and cross-memory
 * attach for large messages. */
#define RAVEL_UCX_ONE_NODE_TLS "self,sysv,cma"
/* UCX_MODULES with that UCX_TLS: the modules of no transport in it. */
#define RAVEL_UCX_ONE_NODE_MODULES "^ib,rdmacm"
/* UCX_SYSV_RX_BUFS_GROW on one node: receive segments added at a time. */
#define RAVEL_UCX_ONE_NODE_RX_BUFS_GROW "64"

/* Whether every rank of the job is on this node, from the environment's
 * values (NULL when unset): `local_ranks`, the ranks on this node
 * (MPI_LOCALNRANKS, set by MPICH's launcher, hydra); `all_ranks`, the
 * ranks of the job (PMI_SIZE); `launched`, whether any launcher's variable
 * is set (PMI_FD, PMI_PORT, PMIX_RANK, ...; ravel_mpi_init looks).  Yes
 * when no launcher started the program (a singleton) or both counts are
 * the same number; no when a count is missing or not a number: a launcher
 * that does not say where the ranks are (Slurm's, PMIx) may have spread
 * them over nodes. */
int ravel_every_rank_here(const char *local_ranks, const char *all_ranks,
                          int launched);

/* MPI_Init(argc, argv), after setting HWLOC_COMPONENTS, UCX_TLS,
 * UCX_MODULES and UCX_SYSV_RX_BUFS_GROW to the values above where
 * ravel_every_rank_here says so and the user has not set them (UCX_MODULES
 * only where UCX_TLS is set here too); returns MPI_Init's value. */
int ravel_mpi_init(int *argc, char ***argv);

#ifdef __cplusplus
}
#endif

#endif
