// Which ARM64 kernel paths this CPU runs. Linux reports the extensions in the auxiliary vector:
// AT_HWCAP's ASIMD (NEON) and ASIMDDP (SDOT/UDOT), AT_HWCAP2's I8MM (USMMLA/USDOT). macOS
// reports them by sysctl (hw.optional.arm.FEAT_DotProd / FEAT_I8MM). Elsewhere (x86-64) no ARM
// path is supported.
#pragma STDC FP_CONTRACT OFF
#include "ck_matmul.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>

// The bits as the kernel's uapi asm/hwcap.h numbers them (older libc headers may lack them).
enum { HWCAP_ASIMD_BIT = 1 << 1, HWCAP_ASIMDDP_BIT = 1 << 20, HWCAP2_I8MM_BIT = 1 << 13 };

int ck_arm_path_supported(int p) {
    const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    const int neon = (hw & HWCAP_ASIMD_BIT) != 0, dot = neon && (hw & HWCAP_ASIMDDP_BIT) != 0;
    switch (p) {
    case CK_PATH_NEON: return neon;
    case CK_PATH_DOTPROD: return dot;
    case CK_PATH_I8MM: return dot && (hw2 & HWCAP2_I8MM_BIT) != 0;
    default: return 0;
    }
}
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>

/// 1 when sysctl reports the named feature (absent names read as 0).
static int feature(const char *name) {
    int v = 0;
    size_t len = sizeof v;
    return sysctlbyname(name, &v, &len, NULL, 0) == 0 && v != 0;
}

int ck_arm_path_supported(int p) {
    switch (p) {
    case CK_PATH_NEON: return 1;   // every arm64 Apple CPU
    case CK_PATH_DOTPROD: return feature("hw.optional.arm.FEAT_DotProd");
    case CK_PATH_I8MM: return feature("hw.optional.arm.FEAT_DotProd") && feature("hw.optional.arm.FEAT_I8MM");
    default: return 0;
    }
}
#else
int ck_arm_path_supported(int p) {
    (void)p;
    return 0;
}
#endif
