/*
 * The firmware's power-on self-test of the offload pipeline, run on the SoC's own RnicCore (docs/host-link.md,
 * "Power-on self-test"): QP 0 and QP 1 of the core are joined into a loopback pair through the TCP bridge, and the
 * checks below run real traffic through the MPA framer/deframer (CRC32c), the RFC 7306 atomic unit and the STag
 * validator. The expected values are the documents' (docs/requirements.md §4.2, §2.9, §3.2), typed here, never
 * computed by the firmware.
 */
#ifndef SELFTEST_H
#define SELFTEST_H

#include <stdint.h>

/* One bit per check, in this order (the host driver names them the same way: rnic.transport.serial.BoardSelfTest). */
enum {
    ST_CRC_FIG5_TX,  /* QP 0's first FPDU (leading Marker, 24-octet Send, MSN 1) is RFC 5044 Fig. 5, CRC 52 23 99 83 */
    ST_CRC_FIG5_RX,  /* QP 1's deframer accepted that FPDU (Markers, CRC checked): a 24-octet receive completion */
    ST_CRC_FIG6_TX,  /* QP 1's second FPDU (after a 464-octet Send) is Fig. 6: Marker 00 00 00 14, CRC 84 92 58 98 */
    ST_CRC_FIG6_RX,  /* QP 0 accepted both FPDUs: receive completions of 464 and 24 octets */
    ST_FETCH_ADD_F1, /* masked FetchAdd F1 through QP 1's atomic unit: memory 00000000_FFFF0000, original returned */
    ST_CMP_SWAP_C1,  /* masked CmpSwap C1: memory 11223344_CCCCDDDD, original returned */
    ST_STAG_ACCEPT,  /* an RDMA Write inside QP 1's registered region with its STag is placed */
    ST_STAG_REFUSE,  /* the same Write with a wrong STag key is refused: nothing placed, Terminate 1/1/00 (E-D1) */
    ST_CRC_REFUSE,   /* on fresh streams, Fig. 5's FPDU with one CRC bit flipped on the wire is refused by QP 1's
                      * deframer: nothing placed, QP 1 in ERR with MPA error code 2 (E-M2) */
    ST_CLEANUP,      /* afterwards every octet moved, both QPs back in RESET, the STag deregistered */
    ST_CHECKS
};

typedef struct {
    uint32_t passed;     /* bit i: check i passed */
    uint32_t cycles;     /* clock cycles the self-test took */
    uint32_t fig5_crc;   /* the CRC field of QP 0's first FPDU as sent, first octet in bits 31:24 */
    uint32_t fig6_crc;   /* the CRC field of QP 1's second FPDU */
    uint64_t fetch_add;  /* the target after the masked FetchAdd */
    uint64_t cmp_swap;   /* the target after the masked CmpSwap */
    uint32_t terminate;  /* octets 0 and 1 (Layer/EType, Error Code) of the Terminate QP 0 received, in bits 15:0 */
} selftest_result;

/* Runs every check on the RNIC core (it needs two QPs; with fewer, nothing runs and passed is 0) and leaves the core
 * as the host expects to find it: QPs in RESET, no STag valid, board memory used zeroed, interrupt causes cleared. */
void selftest_run(selftest_result *r);

#endif
