// AMX availability: CPUID's AMX-TILE and AMX-INT8 bits, then the Linux permission to use the
// tile data state (XFEATURE_XTILEDATA, dynamically enabled since Linux 5.16), requested once per
// process; without it the first tile instruction would fault.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: cpuid and the tile permission
#include <pthread.h>
#include <cpuid.h>
#include "ck_tile.h"
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static int amx_ok;
static pthread_once_t amx_once = PTHREAD_ONCE_INIT;

static void amx_probe(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return;
    const int tile = (d >> 24) & 1, int8 = (d >> 25) & 1;
    if (!tile || !int8) return;
#ifdef __linux__
    amx_ok = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
#endif
}

int ck_amx_available(void) {
    pthread_once(&amx_once, amx_probe);
    return amx_ok;
}
#endif
