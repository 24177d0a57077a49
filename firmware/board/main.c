/*
 * The board firmware: the host link on the UART and the messages of docs/host-link.md ("Messages").
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "hostlink.h"
#include "selftest.h"

#define MAX_CONNECTIONS 16
static unsigned tcp_connections; /* the RNIC core's QP count, from its CORE_CONFIG register */

static hl_link link_;
static selftest_result selftest; /* the power-on self-test, run before the link starts */
/* The link session of the last start; in .noinit, so a reset of the SoC does not clear it (board.ld). */
#define LAST_START_MAGIC 0x53455353u
static struct {
    uint32_t magic;
    uint32_t session;
} last_start __attribute__((section(".noinit")));

/* The link's ticks are clock cycles (the low word of the cycle counter: the link compares differences, so the wrap
 * every 2^32 cycles is harmless). */
static uint32_t now(void) {
    return BOARD_CYCLE_LO;
}

static void uart_out(void *ctx, const uint8_t *octets, size_t length) {
    (void) ctx;
    for (size_t i = 0; i < length; i++) {
        while (((UART_STATUS >> 16) & 0xFF) == 0) {
        }
        UART_DATA = octets[i];
    }
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t) (v >> 24);
    p[1] = (uint8_t) (v >> 16);
    p[2] = (uint8_t) (v >> 8);
    p[3] = (uint8_t) v;
}

static uint32_t get_be32(const uint8_t *p) {
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
}

static void answer(const uint8_t *m, size_t n) {
    while (hl_send(&link_, m, n) != 0) {
        /* Window full: keep the link running until the host acknowledges. */
        uint32_t s = UART_DATA;
        if (s & 0x10000u) {
            hl_receive_byte(&link_, (uint8_t) s);
        }
        hl_poll(&link_, now());
    }
}

/* Pushes TCP payload toward the core's connection q, four octets a beat, as far as the bridge's FIFO has room (it
 * never waits: a core that does not take its stream yet must not stop the link that would let the host set it up).
 * Returns the octets taken; the host sends the rest again later. */
static size_t tcp_push(unsigned q, uint32_t seq, const uint8_t *p, size_t n) {
    size_t done = 0;
    uint32_t free = TCP_RX_FREE(q);
    TCP_RX_SEQ(q) = seq;
    while (done < n && free > 0) {
        size_t k = n - done < 4 ? n - done : 4;
        uint32_t w = 0;
        for (size_t i = 0; i < k; i++) {
            w |= (uint32_t) p[done + i] << (8 * i);
        }
        TCP_RX_KEEP(q) = (1u << k) - 1u;
        TCP_RX_DATA(q) = w;
        done += k;
        free--;
    }
    TCP_RX_KEEP(q) = 0xFu;
    return done;
}

/* Ends the stream toward the core's connection q after every octet pushed (the peer's FIN or RST): one beat with no
 * octets and FIN. Returns whether the bridge had room for it; the host asks again otherwise. */
static int tcp_fin(unsigned q) {
    if (TCP_RX_FREE(q) == 0) {
        return 0;
    }
    TCP_RX_KEEP(q) = TCP_RX_KEEP_FIN;
    TCP_RX_DATA(q) = 0;
    TCP_RX_KEEP(q) = 0xFu;
    return 1;
}

/* Forwards what the core sent on connection q to the host: 'X', q, the octets (up to a frame). Returns whether it
 * sent anything. */
static int tcp_forward(unsigned q) {
    static uint8_t msg[HL_MAX_PAYLOAD];
    size_t n = 2;
    while (n + 4 <= HL_MAX_PAYLOAD && TCP_TX_COUNT(q) != 0) {
        uint32_t keep = TCP_TX_META(q) & 0xFu;
        uint32_t w = TCP_TX_DATA(q);
        for (unsigned i = 0; i < 4; i++) {
            if (keep & (1u << i)) {
                msg[n++] = (uint8_t) (w >> (8 * i));
            }
        }
    }
    if (n == 2) {
        return 0;
    }
    msg[0] = 'X';
    msg[1] = (uint8_t) q;
    answer(msg, n);
    return 1;
}

/* One message from the host: the first octet says what it is; the answer repeats it in lower case. */
static void deliver(void *ctx, const uint8_t *m, size_t n) {
    (void) ctx;
    static uint8_t out[HL_MAX_PAYLOAD];
    if (n == 0) {
        return;
    }
    switch (m[0]) {
    case 'E': /* echo: the payload reversed, each octet XOR 0xA5 */
        out[0] = 'e';
        for (size_t i = 1; i < n; i++) {
            out[i] = m[n - i] ^ 0xA5;
        }
        answer(out, n);
        break;
    case 'I': { /* board info: ID, clock, baud, hardware build, board memory, RNIC registers, link counters */
        out[0] = 'i';
        put_be32(out + 1, BOARD_ID);
        put_be32(out + 5, BOARD_CLOCK_HZ);
        put_be32(out + 9, BOARD_BAUD);
        put_be32(out + 13, BOARD_BUILD);
        put_be32(out + 17, MEMORY_BASE);
        put_be32(out + 21, BOARD_MEMORY_BYTES);
        put_be32(out + 25, RNIC_BASE);
        put_be32(out + 29, link_.stats.retransmissions);
        put_be32(out + 33, link_.stats.dropped_bad_crc + link_.stats.dropped_bad_framing);
        put_be32(out + 37, link_.stats.dropped_out_of_order);
        answer(out, 41);
        break;
    }
    case 'S': { /* the power-on self-test's result (selftest.h) */
        out[0] = 's';
        out[1] = ST_CHECKS;
        put_be32(out + 2, selftest.passed);
        put_be32(out + 6, selftest.cycles);
        put_be32(out + 10, selftest.fig5_crc);
        put_be32(out + 14, selftest.fig6_crc);
        put_be32(out + 18, (uint32_t) (selftest.fetch_add >> 32));
        put_be32(out + 22, (uint32_t) selftest.fetch_add);
        put_be32(out + 26, (uint32_t) (selftest.cmp_swap >> 32));
        put_be32(out + 30, (uint32_t) selftest.cmp_swap);
        put_be32(out + 34, selftest.terminate);
        answer(out, 38);
        break;
    }
    case 'M': /* write octets to memory: address, then the octets */
        if (n >= 5) {
            uint8_t *dst = (uint8_t *) get_be32(m + 1);
            memcpy(dst, m + 5, n - 5);
            out[0] = 'm';
            answer(out, 1);
        }
        break;
    case 'N': /* read octets from memory: address, count (16 bits, at most a frame's worth) */
        if (n == 7) {
            uint32_t count = ((uint32_t) m[5] << 8) | m[6];
            if (count > HL_MAX_PAYLOAD - 1) {
                count = HL_MAX_PAYLOAD - 1;
            }
            out[0] = 'n';
            memcpy(out + 1, (const uint8_t *) get_be32(m + 1), count);
            answer(out, count + 1);
        }
        break;
    case 'T': /* TCP payload toward the core: connection, sequence number of the first octet, the octets */
        if (n >= 6 && m[1] < tcp_connections) {
            size_t taken = tcp_push(m[1], get_be32(m + 2), m + 6, n - 6);
            out[0] = 't';
            out[1] = (uint8_t) (taken >> 8);
            out[2] = (uint8_t) taken;
            answer(out, 3);
        }
        break;
    case 'F': /* the end of a connection's stream toward the core: connection; answers whether it was taken */
        if (n == 2 && m[1] < tcp_connections) {
            out[0] = 'f';
            out[1] = (uint8_t) tcp_fin(m[1]);
            answer(out, 2);
        }
        break;
    case 'R': /* read 32 bits at an address */
        if (n == 5) {
            out[0] = 'r';
            put_be32(out + 1, REG32(get_be32(m + 1)));
            answer(out, 5);
        }
        break;
    case 'W': /* write 32 bits at an address */
        if (n == 9) {
            REG32(get_be32(m + 1)) = get_be32(m + 5);
            out[0] = 'w';
            answer(out, 1);
        }
        break;
    default:
        out[0] = '?';
        out[1] = m[0];
        answer(out, 2);
        break;
    }
}

int main(void) {
    uint32_t clock = BOARD_CLOCK_HZ;
    tcp_connections = (RNIC_REG(RNIC_CORE_CONFIG) & RNIC_CORE_CONFIG_QP_COUNT_MASK) >> RNIC_CORE_CONFIG_QP_COUNT_SHIFT;
    if (tcp_connections > MAX_CONNECTIONS) {
        tcp_connections = MAX_CONNECTIONS;
    }
    UART_FRAME = 7u;                                                /* 8 data bits, no parity, 1 stop bit */
    UART_DIVIDER = clock / (BOARD_UART_SAMPLES * BOARD_BAUD) - 1u;
    BOARD_LEDS = 1u;
    /* The power-on self-test of the offload pipeline on the RNIC core (the UART's receive FIFO keeps what the host
     * sends meanwhile); LED 2 shows that every check passed. */
    selftest_run(&selftest);
    uint32_t selftest_led = selftest.passed == (1u << ST_CHECKS) - 1u ? 4u : 0u;
    BOARD_LEDS = 1u | selftest_led;
    /* A new session number at every start, so the host sees the board restarted. After a reset the RAM still holds
     * the last start's number: the next one follows it. After power-on (the RAM as the configuration loaded it) the
     * cycle count when the first octet from the host arrives picks it. */
    uint32_t s;
    while (!((s = UART_DATA) & 0x10000u)) {
    }
    uint8_t session = last_start.magic == LAST_START_MAGIC
            ? (uint8_t) (last_start.session + 1u)
            : (uint8_t) (BOARD_CYCLE_LO ^ BOARD_BUTTONS ^ (BOARD_CYCLE_LO >> 8));
    last_start.session = session;
    last_start.magic = LAST_START_MAGIC;
    hl_init(&link_, uart_out, deliver, 0, clock / 20u, session); /* retransmit after 50 ms */
    hl_receive_byte(&link_, (uint8_t) s);
    int shown = 0; /* LED 1 shows the link is up; set on a change only, so the host may drive the LEDs */
    for (;;) {
        uint32_t d;
        while ((d = UART_DATA) & 0x10000u) {
            hl_receive_byte(&link_, (uint8_t) d);
        }
        if (hl_ready(&link_)) {
            for (unsigned q = 0; q < tcp_connections; q++) {
                tcp_forward(q);
            }
            /* The RNIC's interrupt as an event: 'Q' when the line rises (the host clears its cause). */
            static uint32_t irq;
            uint32_t now_irq = BOARD_IRQ & 1u;
            if (now_irq && !irq) {
                uint8_t e = 'Q';
                answer(&e, 1);
            }
            irq = now_irq;
        }
        if (hl_ready(&link_) != shown) {
            shown = hl_ready(&link_);
            BOARD_LEDS = 1u | (shown ? 2u : 0u) | selftest_led;
        }
        hl_poll(&link_, now());
    }
}
