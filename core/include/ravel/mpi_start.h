/* ravel/mpi_start.h: starting MPI the way ravel's programs do.
 *
 * MPICH's MPI_Init has hwloc discover the machine, its PCI devices
 * included, by reading each device's configuration space under /sys: on
 * the benchmark VM, whose hypervisor traps those reads, that was 0.02 of
 * the 0.05 s that two ranks took to start, a fifth of TC's whole run on
 * the smallest graphs (bench/results/peers/README.md, "The time floor of
 * an MPI program").  MPICH needs the PCI devices only to place a rank near
 * its network card (ch4:ofi) and for MPI_Comm_split_type's hardware hints,
 * which ravel does not use; when every rank runs on this node there is no
 * network card to be near.  So ravel's programs start MPI with hwloc told
 * to skip Linux's PCI phase (HWLOC_COMPONENTS=-linux:pci) when the
 * launcher says every rank is on this node, or there is no launcher, and
 * the user has not set HWLOC_COMPONENTS. */
#ifndef RAVEL_MPI_START_H
#define RAVEL_MPI_START_H

#ifdef __cplusplus
extern "C" {
#endif

/* What hwloc's skipping of PCI devices sets HWLOC_COMPONENTS to. */
#define RAVEL_HWLOC_SKIP_PCI "-linux:pci"

/* The HWLOC_COMPONENTS a program should start MPI with, from the
 * environment's values (NULL when unset): `user`, HWLOC_COMPONENTS itself;
 * `local_ranks`, the ranks on this node (MPI_LOCALNRANKS, set by MPICH's
 * launcher, hydra); `all_ranks`, the ranks of the job (PMI_SIZE);
 * `launched`, whether any launcher's variable is set (PMI_FD, PMI_PORT,
 * PMIX_RANK, ...; ravel_mpi_init looks).  Returns RAVEL_HWLOC_SKIP_PCI
 * when HWLOC_COMPONENTS is unset and either no launcher started the
 * program (a singleton) or both counts are the same number; NULL (leave
 * the environment as it is) otherwise, also when a count is missing or not
 * a number: a launcher that does not say where the ranks are (Slurm's,
 * PMIx) may have spread them over nodes. */
const char *ravel_hwloc_components_for(const char *user,
                                       const char *local_ranks,
                                       const char *all_ranks, int launched);

/* MPI_Init(argc, argv) after setting HWLOC_COMPONENTS as
 * ravel_hwloc_components_for says; returns MPI_Init's value. */
int ravel_mpi_init(int *argc, char ***argv);

#ifdef __cplusplus
}
#endif

#endif
