/* Whether the PMIx 4.2.2 repairs act: only on the very libpmix whose private headers they were
 * built and checked against. Debian's version string does not change between its revisions of
 * 4.2.2 (a security update rebuilds the same "4.2.2"), so the version is not enough: the loaded
 * library's GNU build id must be the one configure recorded (PRTE_PMIX422_BUILD_ID). A host may
 * also switch them off by hand (the parameter pmix_server_repairs). Decided once, on first ask;
 * pmix::start asks before PMIx's thread exists. */
#define _GNU_SOURCE 1
#include "prte_config.h"

#include "pmix/pmix422/repairs.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pmix.h>

static pthread_once_t decide_once = PTHREAD_ONCE_INIT;
static const char *problem; /* NULL: the repairs act */
static char problem_text[768];
static char loaded_id[129];
static char loaded_path[256];
static const char *off_by_hand;

static void hex(const unsigned char *bytes, size_t n, char *out, size_t cap)
{
    size_t at = 0;
    for (size_t i = 0; i < n && at + 2 < cap; i++) at += (size_t) snprintf(out + at, cap - at, "%02x", bytes[i]);
    out[at] = '\0';
}

/* The loaded object that holds `addr`: its path, and the build id in its PT_NOTE segments. */
static int inspect(struct dl_phdr_info *info, size_t size, void *addr)
{
    (void) size;
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && (uintptr_t) addr >= start && (uintptr_t) addr < start + ph->p_memsz;
    }
    if (!holds) return 0;
    snprintf(loaded_path, sizeof(loaded_path), "%s", info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "?");
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *) (info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *) p;
            const unsigned char *name = p + sizeof(*note);
            const unsigned char *desc = name + ((note->n_namesz + 3u) & ~3u);
            if (desc + note->n_descsz > end) break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                hex(desc, note->n_descsz, loaded_id, sizeof(loaded_id));
                return 1;
            }
            p = desc + ((note->n_descsz + 3u) & ~3u);
        }
    }
    return 1;
}

static void decide(void)
{
#ifndef PRTE_PMIX422_PRIVATE_HEADERS
    problem = "prte was built without OpenPMIx 4.2.2's private headers (configure said so)";
#else
    /* "OpenPMIx 4.2.2rc2 (PMIx Standard: ...)": the library's version, then a letter or a space. */
    char expected[64];
    snprintf(expected, sizeof(expected), "OpenPMIx %ld.%ld.%ld", (long) PMIX_VERSION_MAJOR, (long) PMIX_VERSION_MINOR,
             (long) PMIX_VERSION_RELEASE);
    const char *running = PMIx_Get_version();
    size_t n = strlen(expected);
    if (running == NULL || strncmp(running, expected, n) != 0 || (running[n] >= '0' && running[n] <= '9')) {
        snprintf(problem_text, sizeof(problem_text), "the running libpmix (%s) is not the %s they were built for",
                 running ? running : "unknown", expected);
        problem = problem_text;
        return;
    }
    dl_iterate_phdr(inspect, (void *) &PMIx_Get_version);
    if (PRTE_PMIX422_BUILD_ID[0] == '\0') {
        problem = "configure found no build id of the libpmix they were checked against";
    } else if (strcmp(loaded_id, PRTE_PMIX422_BUILD_ID) != 0) {
        snprintf(problem_text, sizeof(problem_text),
                 "the loaded libpmix (%s, build id %s) is not the one they were checked against (build id %s)",
                 loaded_path[0] ? loaded_path : "not found", loaded_id[0] ? loaded_id : "none", PRTE_PMIX422_BUILD_ID);
        problem = problem_text;
    }
#endif
}

void prte_pmix422_repairs_switch_off(const char *why)
{
    off_by_hand = why;
}

const char *prte_pmix422_repairs_state(void)
{
    if (off_by_hand != NULL) return off_by_hand;
    pthread_once(&decide_once, decide);
    return problem;
}

const char *prte_pmix422_checked_build_id(void)
{
    return PRTE_PMIX422_BUILD_ID;
}
