/*
 * Power-on self-test of the offload pipeline on the SoC's own RnicCore (see selftest.h).
 *
 * The CPU reaches the core only as the host driver does — its registers, board memory (the core's host memory) and
 * the TCP bridge — so the self-test is a small driver: QP 0 and QP 1 get rings, completion queues and an STag in
 * board memory, both enter Full Operation with Markers and CRC on in both directions, and the firmware joins them
 * into a loopback pair by moving every octet QP 0 sends into QP 1's receive stream and back (the "wire"). It sees each
 * stream's first octets as they leave the framer, so the CRC32c the hardware computed is compared with the RFC's
 * figures octet for octet; the receiving deframer checks the same CRC again (and, on fresh streams, must refuse the
 * FPDU when the wire flips one bit of its CRC); the atomics run in the responder's RFC 7306 unit against board
 * memory; the STag validator accepts a Write with the registered STag and refuses one with a wrong key. No block is
 * reached any other way, so no hardware hook was needed.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "selftest.h"

#define QP_REG(q, r) RNIC_REG(RNIC_QP_##r(QP_BASE, QP_SIZE, (q)))
#define CQ_REG(c, r) RNIC_REG(RNIC_CQ_##r(CQ_BASE, CQ_SIZE, (c)))

/* QP states (rnic.wire.QpState), completion kinds (rnic.wire.CqeKind), WQE opcodes (RDMAP opcodes). */
#define QP_RESET 0u
#define QP_INIT 1u
#define QP_RTR 2u
#define QP_RTS 3u
#define QP_ERR 6u
#define KIND_RECEIVE 0u
#define KIND_ATOMIC_DONE 3u
#define KIND_TERMINATE_RECEIVED 4u
#define KIND_TERMINATE_SENT 5u
#define KIND_SEND_DONE 6u
#define KIND_MPA_ERROR 8u
#define MPA_CRC_ERROR 0x02u /* RFC 5044 §8 code 2, row E-M2 */
#define OP_WRITE 0x0u
#define OP_SEND 0x3u
#define OP_ATOMIC 0xAu
#define AOP_FETCH_ADD 0x0u
#define AOP_CMP_SWAP 0x2u
#define WQE_SIGNALED 0x01u

/* Board memory while the self-test runs (offsets from MEMORY_BASE); zeroed again at the end. */
#define MEM(off) (MEMORY_BASE + (off))
#define SQ_ADDR(q) MEM(0x0000u + 0x400u * (q)) /* 8 slots of 128 octets */
#define RQ_ADDR(q) MEM(0x0800u + 0x100u * (q)) /* 8 slots of 32 octets */
#define CQ_ADDR(c) MEM(0x0A00u + 0x200u * (c)) /* 16 slots of 32 octets */
#define SRC MEM(0x1000u)                       /* payloads: 1 KiB */
#define RECV1 MEM(0x1400u)                     /* QP 1's receive buffer, 64 octets */
#define RECV0A MEM(0x1800u)                    /* QP 0's receive buffers: 512 and 64 octets */
#define RECV0B MEM(0x1A00u)
#define RESULT MEM(0x1C00u)                    /* the atomics' returned originals */
#define REGION MEM(0x2000u)                    /* QP 1's registered region, 256 octets */
#define USED 0x2100u
#define SQ_LOG2 3u
#define RQ_LOG2 3u
#define CQ_LOG2 4u

#define PD 1u
#define STAG_INDEX 1u
#define STAG_KEY 0x5Au
#define STAG ((STAG_INDEX << 8) | STAG_KEY)
#define SEQ0 1000u        /* TCP sequence number of each stream's first Full-Operation octet */
#define EMSS 1460u
#define WAIT_CYCLES 400000u /* the longest any step may take (8 ms at 48 MHz); it takes a few thousand */

/* RFC 5044 Fig. 5 (docs/requirements.md §4.2, MPA-19, MPA-37): the first FPDU of a stream with Markers — the
 * leading Marker, ULPDU_Length 42, an untagged Send header (DDP 41, RDMAP 43, QN 0, MSN 1, MO 0), 24 zero octets —
 * and its CRC field as sent. */
static const uint8_t FIG5[52] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
#ifdef SELFTEST_FAULT
    /* The fault-injection test build: one bit of the expected CRC is wrong, so check CRC_FIG5_TX must fail. */
    0x53, 0x23, 0x99, 0x83};
#else
    0x52, 0x23, 0x99, 0x83};
#endif
/* Fig. 6: the second FPDU of a stream whose first FPDU was 492 octets with its leading Marker, from stream offset
 * 0x1EC — header (Send, MSN 2), the Marker at 0x200 pointing back 0x14 octets, the rest of the 24 zero octets — and
 * its CRC field. */
#define FIG6_AT 0x1ECu
static const uint8_t FIG6[52] = {
    0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x84, 0x92, 0x58, 0x98};
#define FIG6_FIRST_PAYLOAD 464u /* 482-octet ULPDU: 18 header octets + 464 */

/* RFC 7306 worked examples (docs/requirements.md §2.9). */
#define F1_ORIGINAL 0x0000FFFFFFFFFFFFull
#define F1_ADD 0x0000000100000001ull
#define F1_MASK 0x8000800080008000ull
#define F1_NEW 0x00000000FFFF0000ull
#define C1_ORIGINAL 0x1122334455667788ull
#define C1_SWAP 0xAAAABBBBCCCCDDDDull
#define C1_SWAP_MASK 0x00000000FFFFFFFFull
#define C1_COMPARE 0x1122000000000000ull
#define C1_COMPARE_MASK 0xFFFF000000000000ull
#define C1_NEW 0x11223344CCCCDDDDull

/* Terminate for an invalid STag: E-D1, Layer 1 (DDP) / EType 1 (tagged buffer) / Code 0x00 (docs/requirements.md
 * §3.2). */
#define E_D1 0x1100u

#define CAPTURE 0x240u
static uint8_t captured[2][CAPTURE]; /* each direction's first octets as the framer sent them */
static uint32_t seen[2];
static uint32_t corrupt_at[2]; /* stream offset of an octet the wire damages (one bit), or ~0 */
static uint16_t sq_prod[2], rq_prod[2], cq_next[2];

static void put32(uint32_t a, uint32_t v) {
    REG32(a) = v;
}

static void put64(uint32_t a, uint64_t v) {
    REG32(a) = (uint32_t) v;
    REG32(a + 4) = (uint32_t) (v >> 32);
}

static uint64_t get64(uint32_t a) {
    return REG32(a) | ((uint64_t) REG32(a + 4) << 32);
}

static void fill(uint32_t a, uint32_t n, uint8_t v) {
    for (uint32_t i = 0; i < n; i++) {
        *(volatile uint8_t *) (a + i) = v;
    }
}

static int all(uint32_t a, uint32_t n, uint8_t v) {
    for (uint32_t i = 0; i < n; i++) {
        if (*(volatile uint8_t *) (a + i) != v) {
            return 0;
        }
    }
    return 1;
}

/* The wire: every octet connection q's framer sent goes into connection q ^ 1's receive stream, packed into beats
 * with the octets from bit 0 (as the host link's 'T' pushes them). */
static void pump(void) {
    for (unsigned q = 0; q < 2; q++) {
        unsigned to = q ^ 1u;
        while (TCP_TX_COUNT(q) != 0 && TCP_RX_FREE(to) != 0) {
            uint32_t keep = TCP_TX_META(q) & 0xFu;
            uint32_t w = TCP_TX_DATA(q);
            uint32_t packed = 0;
            unsigned k = 0;
            for (unsigned i = 0; i < 4; i++) {
                if (keep & (1u << i)) {
                    uint8_t o = (uint8_t) (w >> (8 * i));
                    if (seen[q] < CAPTURE) {
                        captured[q][seen[q]] = o;
                    }
                    if (seen[q] == corrupt_at[q]) {
                        o ^= 0x10u;
                    }
                    packed |= (uint32_t) o << (8 * k++);
                    seen[q]++;
                }
            }
            if (k != 0) {
                TCP_RX_KEEP(to) = (1u << k) - 1u;
                TCP_RX_DATA(to) = packed;
            }
        }
    }
}

static uint32_t cqe_addr(unsigned c, uint16_t index) {
    return CQ_ADDR(c) + 32u * (index & ((1u << CQ_LOG2) - 1u));
}

/* The owner bit a new entry of free-running index i carries: 1 on the first pass, flipped at every wrap. */
static uint8_t phase(uint16_t i) {
    return ((i >> CQ_LOG2) & 1u) == 0 ? 1u : 0u;
}

/* Waits (moving the wire) for the next completion of CQ c; returns its address, or 0 after WAIT_CYCLES. */
static uint32_t next_cqe(unsigned c) {
    uint32_t start = BOARD_CYCLE_LO;
    for (;;) {
        uint32_t e = cqe_addr(c, cq_next[c]);
        if ((*(volatile uint8_t *) (e + 31) & 1u) == phase(cq_next[c])) {
            cq_next[c]++;
            return e;
        }
        if (BOARD_CYCLE_LO - start > WAIT_CYCLES) {
            return 0;
        }
        pump();
    }
}

/* A completion of kind on CQ c with status 0 (and, unless length is ~0, that length). */
static int completes(unsigned c, uint8_t kind, uint32_t length) {
    uint32_t e = next_cqe(c);
    if (e == 0) {
        return 0;
    }
    volatile uint8_t *b = (volatile uint8_t *) e;
    return b[21] == kind && b[22] == 0 && (length == ~0u || REG32(e + 4) == length);
}

static void post_send(unsigned q, uint32_t opcode, uint32_t aop, uint32_t length, uint32_t local, uint32_t stag,
        uint32_t to, uint64_t data, uint64_t mask, uint64_t compare, uint64_t compare_mask) {
    uint32_t s = SQ_ADDR(q) + 128u * (sq_prod[q] & ((1u << SQ_LOG2) - 1u));
    for (uint32_t i = 0; i < 128; i += 4) {
        put32(s + i, 0);
    }
    put32(s + 0, opcode | (WQE_SIGNALED << 8) | (aop << 16));
    put32(s + 4, length);
    put64(s + 8, local);
    put32(s + 20, stag);
    put64(s + 32, to);
    put64(s + 48, data);
    put64(s + 56, mask);
    put64(s + 64, compare);
    put64(s + 72, compare_mask);
    sq_prod[q]++;
    QP_REG(q, SQ_PROD) = sq_prod[q];
}

static void post_recv(unsigned q, uint32_t address, uint32_t capacity) {
    uint32_t r = RQ_ADDR(q) + 32u * (rq_prod[q] & ((1u << RQ_LOG2) - 1u));
    for (uint32_t i = 0; i < 32; i += 4) {
        put32(r + i, 0);
    }
    put64(r, address);
    put32(r + 8, capacity);
    rq_prod[q]++;
    QP_REG(q, RQ_PROD) = rq_prod[q];
}

static int move_to(unsigned q, uint32_t state) {
    QP_REG(q, STATE) = state;
    return (QP_REG(q, STATE) & RNIC_QP_STATE_STATE_MASK) == state;
}

static int stag_program(uint32_t index, uint32_t key, uint32_t flags, uint32_t va, uint32_t length) {
    while (RNIC_REG(RNIC_STAG_STATUS) & RNIC_STAG_STATUS_BUSY_MASK) {
    }
    RNIC_REG(RNIC_STAG_INDEX) = index;
    RNIC_REG(RNIC_STAG_KEY) = key;
    RNIC_REG(RNIC_STAG_PD) = flags ? PD : 0;
    RNIC_REG(RNIC_STAG_QP) = 0;
    RNIC_REG(RNIC_STAG_FLAGS) = flags;
    RNIC_REG(RNIC_STAG_VA_LO) = va;
    RNIC_REG(RNIC_STAG_VA_HI) = 0;
    RNIC_REG(RNIC_STAG_LEN_LO) = length;
    RNIC_REG(RNIC_STAG_LEN_HI) = 0;
    RNIC_REG(RNIC_STAG_COMMAND) = 1;
    uint32_t start = BOARD_CYCLE_LO;
    while (RNIC_REG(RNIC_STAG_STATUS) & RNIC_STAG_STATUS_BUSY_MASK) {
        if (BOARD_CYCLE_LO - start > WAIT_CYCLES) {
            return 0;
        }
    }
    return 1;
}

/* Both QPs configured (rings, CQs, PD) and in RTS with Markers and CRC on in both directions; QP 1 has one receive
 * buffer for Fig. 5's Send, QP 0 two for Fig. 6's stream; the region at REGION is registered for QP 1's peer. */
static int bring_up(void) {
    for (unsigned c = 0; c < 2; c++) {
        CQ_REG(c, BASE_LO) = CQ_ADDR(c);
        CQ_REG(c, BASE_HI) = 0;
        CQ_REG(c, SIZE) = CQ_LOG2;
        cq_next[c] = (uint16_t) CQ_REG(c, PROD);
        for (uint16_t i = 0; i < (1u << CQ_LOG2); i++) {
            uint16_t k = (uint16_t) (cq_next[c] + i);
            *(volatile uint8_t *) (cqe_addr(c, k) + 31) = phase(k) ^ 1u;
        }
        CQ_REG(c, CONS) = cq_next[c];
    }
    if (!stag_program(STAG_INDEX, STAG_KEY, RNIC_STAG_FLAGS_VALID_MASK | RNIC_STAG_FLAGS_REMOTE_WRITE_MASK
            | RNIC_STAG_FLAGS_REMOTE_ATOMIC_MASK, REGION, 256)) {
        return 0;
    }
    for (unsigned q = 0; q < 2; q++) {
        sq_prod[q] = rq_prod[q] = 0;
        seen[q] = 0;
        corrupt_at[q] = ~0u;
        if (!move_to(q, QP_RESET)) {
            return 0;
        }
        QP_REG(q, PD) = PD;
        QP_REG(q, SQ_BASE_LO) = SQ_ADDR(q);
        QP_REG(q, SQ_BASE_HI) = 0;
        QP_REG(q, SQ_SIZE) = SQ_LOG2;
        QP_REG(q, RQ_BASE_LO) = RQ_ADDR(q);
        QP_REG(q, RQ_BASE_HI) = 0;
        QP_REG(q, RQ_SIZE) = RQ_LOG2;
        QP_REG(q, SQ_CQ) = q;
        QP_REG(q, RQ_CQ) = q;
        if (!move_to(q, QP_INIT)) {
            return 0;
        }
        QP_REG(q, IRD) = 1;
        QP_REG(q, ORD) = 1;
        QP_REG(q, MPA) = RNIC_QP_MPA_TX_MARKERS_MASK | RNIC_QP_MPA_RX_MARKERS_MASK | RNIC_QP_MPA_CRC_MASK;
        QP_REG(q, EMSS) = EMSS;
        QP_REG(q, RX_SEQ_START) = SEQ0;
        TCP_RX_SEQ(q) = SEQ0;
        if (!move_to(q, QP_RTR)) {
            return 0;
        }
    }
    post_recv(1, RECV1, 64);
    post_recv(0, RECV0A, 512);
    post_recv(0, RECV0B, 64);
    return move_to(0, QP_RTS) && move_to(1, QP_RTS);
}

static int same(const uint8_t *a, const uint8_t *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return 0;
        }
    }
    return 1;
}

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
}

/* Moves the wire until QP q reads state, or WAIT_CYCLES pass. */
static int reaches(unsigned q, uint32_t state) {
    uint32_t start = BOARD_CYCLE_LO;
    while ((QP_REG(q, STATE) & RNIC_QP_STATE_STATE_MASK) != state) {
        if (BOARD_CYCLE_LO - start > WAIT_CYCLES) {
            return 0;
        }
        pump();
    }
    return 1;
}

/* Moves the wire until memory at a holds the n octets of b, or WAIT_CYCLES pass. */
static int placed(uint32_t a, uint32_t b, uint32_t n) {
    uint32_t start = BOARD_CYCLE_LO;
    for (;;) {
        int ok = 1;
        for (uint32_t i = 0; i < n && ok; i++) {
            ok = *(volatile uint8_t *) (a + i) == *(volatile uint8_t *) (b + i);
        }
        if (ok) {
            return 1;
        }
        if (BOARD_CYCLE_LO - start > WAIT_CYCLES) {
            return 0;
        }
        pump();
    }
}

/* Moves the wire until nothing waits in either direction (a QP in RESET holds its receive stream, so nothing may be
 * left there for a later connection), then puts both QPs in RESET; returns whether all of that happened. */
static int settle(void) {
    uint32_t t = BOARD_CYCLE_LO;
    while ((TCP_TX_COUNT(0) | TCP_TX_COUNT(1)) != 0 && BOARD_CYCLE_LO - t < WAIT_CYCLES) {
        pump();
    }
    t = BOARD_CYCLE_LO;
    while ((TCP_RX_FREE(0) != TCP_FIFO_BEATS || TCP_RX_FREE(1) != TCP_FIFO_BEATS) && BOARD_CYCLE_LO - t < WAIT_CYCLES) {
    }
    int clean = TCP_TX_COUNT(0) == 0 && TCP_TX_COUNT(1) == 0 && TCP_RX_FREE(0) == TCP_FIFO_BEATS
            && TCP_RX_FREE(1) == TCP_FIFO_BEATS;
    return clean & move_to(0, QP_RESET) & move_to(1, QP_RESET);
}

void selftest_run(selftest_result *r) {
    uint32_t start = BOARD_CYCLE_LO;
    uint32_t pass = 0;
    r->passed = 0;
    r->fig5_crc = r->fig6_crc = r->terminate = 0;
    r->fetch_add = r->cmp_swap = 0;
    unsigned qps = (RNIC_REG(RNIC_CORE_CONFIG) & RNIC_CORE_CONFIG_QP_COUNT_MASK) >> RNIC_CORE_CONFIG_QP_COUNT_SHIFT;
    unsigned cqs = (RNIC_REG(RNIC_CORE_CONFIG) & RNIC_CORE_CONFIG_CQ_COUNT_MASK) >> RNIC_CORE_CONFIG_CQ_COUNT_SHIFT;
    if (qps < 2 || cqs < 2) {
        r->cycles = BOARD_CYCLE_LO - start;
        return;
    }
    fill(MEM(0), USED, 0);
    fill(RECV1, 64, 0xEE);
    fill(RECV0A, 0x240, 0xEE);
    fill(REGION + 0x40, 0x80, 0xEE);
    for (uint32_t i = 0; i < 16; i++) {
        *(volatile uint8_t *) (SRC + 0x300 + i) = (uint8_t) (7 * i + 1);
    }
    put64(REGION, F1_ORIGINAL);
    put64(REGION + 8, C1_ORIGINAL);

    if (bring_up()) {
        /* Fig. 5: QP 0's first FPDU, checked as it leaves the framer and by QP 1's deframer. */
        post_send(0, OP_SEND, 0, 24, SRC, 0, 0, 0, 0, 0, 0);
        int sent = completes(0, KIND_SEND_DONE, ~0u);
        int received = completes(1, KIND_RECEIVE, 24) && all(RECV1, 24, 0) && all(RECV1 + 24, 40, 0xEE);
        if (seen[0] >= sizeof FIG5) {
            r->fig5_crc = be32(captured[0] + 48);
        }
        if (sent && seen[0] == sizeof FIG5 && same(captured[0], FIG5, sizeof FIG5)) {
            pass |= 1u << ST_CRC_FIG5_TX;
        }
        if (received) {
            pass |= 1u << ST_CRC_FIG5_RX;
        }

        /* Fig. 6: QP 1's stream, a 464-octet Send then a 24-octet one; its second FPDU holds the Marker at 0x200. */
        post_send(1, OP_SEND, 0, FIG6_FIRST_PAYLOAD, SRC, 0, 0, 0, 0, 0, 0);
        post_send(1, OP_SEND, 0, 24, SRC, 0, 0, 0, 0, 0, 0);
        sent = completes(1, KIND_SEND_DONE, ~0u) && completes(1, KIND_SEND_DONE, ~0u);
        received = completes(0, KIND_RECEIVE, FIG6_FIRST_PAYLOAD) && completes(0, KIND_RECEIVE, 24)
                && all(RECV0A, FIG6_FIRST_PAYLOAD, 0) && all(RECV0B, 24, 0) && all(RECV0B + 24, 40, 0xEE);
        if (seen[1] >= FIG6_AT + sizeof FIG6) {
            r->fig6_crc = be32(captured[1] + FIG6_AT + 48);
        }
        if (sent && seen[1] == FIG6_AT + sizeof FIG6 && same(captured[1] + FIG6_AT, FIG6, sizeof FIG6)) {
            pass |= 1u << ST_CRC_FIG6_TX;
        }
        if (received) {
            pass |= 1u << ST_CRC_FIG6_RX;
        }

        /* RFC 7306 F1 and C1: QP 0 asks, QP 1's atomic unit reads, computes and writes board memory. */
        post_send(0, OP_ATOMIC, AOP_FETCH_ADD, 8, RESULT, STAG, REGION, F1_ADD, F1_MASK, 0, ~0ull);
        int done = completes(0, KIND_ATOMIC_DONE, ~0u);
        r->fetch_add = get64(REGION);
        if (done && r->fetch_add == F1_NEW && get64(RESULT) == F1_ORIGINAL) {
            pass |= 1u << ST_FETCH_ADD_F1;
        }
        post_send(0, OP_ATOMIC, AOP_CMP_SWAP, 8, RESULT + 8, STAG, REGION + 8, C1_SWAP, C1_SWAP_MASK, C1_COMPARE,
                C1_COMPARE_MASK);
        done = completes(0, KIND_ATOMIC_DONE, ~0u);
        r->cmp_swap = get64(REGION + 8);
        if (done && r->cmp_swap == C1_NEW && get64(RESULT + 8) == C1_ORIGINAL) {
            pass |= 1u << ST_CMP_SWAP_C1;
        }

        /* The STag validator: a Write inside the region with its STag is placed ... */
        post_send(0, OP_WRITE, 0, 16, SRC + 0x300, STAG, REGION + 0x40, 0, 0, 0, 0);
        if (completes(0, KIND_SEND_DONE, ~0u) && placed(REGION + 0x40, SRC + 0x300, 16)
                && all(REGION + 0x50, 0x30, 0xEE)) {
            pass |= 1u << ST_STAG_ACCEPT;
        }
        /* ... the same Write with a wrong key is refused: QP 1 places nothing and sends a Terminate (E-D1), which
         * moves QP 0 to ERR with a TERMINATE_RECEIVED completion carrying its first octets. */
        post_send(0, OP_WRITE, 0, 16, SRC + 0x300, STAG ^ 1u, REGION + 0x80, 0, 0, 0, 0);
        int refused = reaches(1, QP_ERR) && reaches(0, QP_ERR)
                && (QP_REG(1, ERROR) & RNIC_QP_ERROR_KIND_MASK) >> RNIC_QP_ERROR_KIND_SHIFT == KIND_TERMINATE_SENT;
        for (uint32_t e; (e = next_cqe(0)) != 0;) {
            volatile uint8_t *b = (volatile uint8_t *) e;
            if (b[21] == KIND_TERMINATE_RECEIVED) {
                r->terminate = ((uint32_t) b[15] << 8) | b[14];
                break;
            }
        }
        if (refused && r->terminate == E_D1 && all(REGION + 0x80, 0x40, 0xEE)) {
            pass |= 1u << ST_STAG_REFUSE;
        }
    }

    /* The receiver's CRC check, negative: both QPs back to RESET and up again on fresh streams; the wire flips one bit
     * of the CRC field of QP 0's first FPDU (Fig. 5 again), so QP 1 must place nothing and fail with E-M2. */
    fill(RECV1, 64, 0xEE);
    if (settle() && bring_up()) {
        corrupt_at[0] = 48;
        post_send(0, OP_SEND, 0, 24, SRC, 0, 0, 0, 0, 0, 0);
        uint32_t error = reaches(1, QP_ERR) ? QP_REG(1, ERROR) : 0;
        if ((error & RNIC_QP_ERROR_KIND_MASK) >> RNIC_QP_ERROR_KIND_SHIFT == KIND_MPA_ERROR
                && (error & RNIC_QP_ERROR_STATUS_MASK) >> RNIC_QP_ERROR_STATUS_SHIFT == MPA_CRC_ERROR
                && all(RECV1, 64, 0xEE) && seen[0] == sizeof FIG5) {
            pass |= 1u << ST_CRC_REFUSE;
        }
    }

    /* Leave the core as the host expects it: every octet moved, QPs in RESET, the STag invalid, events cleared,
     * memory zero. */
    int clean = settle();
    clean &= stag_program(STAG_INDEX, 0, 0, 0, 0);
    for (unsigned c = 0; c < 2; c++) {
        CQ_REG(c, CONS) = CQ_REG(c, PROD);
        CQ_REG(c, BASE_LO) = 0;
        CQ_REG(c, SIZE) = 0;
    }
    for (unsigned q = 0; q < 2; q++) {
        TCP_RX_KEEP(q) = 0xFu;
    }
    RNIC_REG(RNIC_IRQ_STATUS) = RNIC_IRQ_STATUS_CQ_MASK | RNIC_IRQ_STATUS_ASYNC_MASK;
    fill(MEM(0), USED, 0);
    if (clean) {
        pass |= 1u << ST_CLEANUP;
    }
    r->passed = pass;
    r->cycles = BOARD_CYCLE_LO - start;
}
