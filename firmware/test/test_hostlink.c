/*
 * Native unit tests of the host link (firmware/link): CRC-32C and COBS against published vectors, then two link
 * engines (one as host, one as board) joined by a noisy line — flipped bits, dropped and duplicated octets at set
 * rates — that must deliver every message exactly once, in order and intact, and a board restart the host detects.
 * Built and run by `make -C firmware test` (and by the JUnit test FirmwareNativeTest).
 */
#include "hostlink.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

/* ---- vectors ---- */

static void test_crc32c(void) {
    /* RFC 3720 B.4: 32 octets of zeros -> 0x8A9136AA, of 0xFF -> 0x62A8AB43, 0..31 -> 0x46DD794E; and the
     * customary check value of "123456789" -> 0xE3069283. */
    uint8_t b[32];
    memset(b, 0, 32);
    CHECK(hl_crc32c(0, b, 32) == 0x8A9136AAu, "zeros %08x", hl_crc32c(0, b, 32));
    memset(b, 0xFF, 32);
    CHECK(hl_crc32c(0, b, 32) == 0x62A8AB43u, "ones %08x", hl_crc32c(0, b, 32));
    for (int i = 0; i < 32; i++) {
        b[i] = (uint8_t) i;
    }
    CHECK(hl_crc32c(0, b, 32) == 0x46DD794Eu, "incrementing %08x", hl_crc32c(0, b, 32));
    CHECK(hl_crc32c(0, (const uint8_t *) "123456789", 9) == 0xE3069283u, "check value");
}

static void cobs_case(const char *name, const uint8_t *in, size_t n, const uint8_t *expect, size_t m) {
    uint8_t enc[600], dec[600];
    size_t e = hl_cobs_encode(in, n, enc);
    CHECK(e == m && memcmp(enc, expect, m) == 0, "cobs encode %s: %zu octets", name, e);
    long d = hl_cobs_decode(enc, e, dec);
    CHECK(d == (long) n && memcmp(dec, in, n) == 0, "cobs decode %s: %ld", name, d);
    for (size_t i = 0; i < e; i++) {
        CHECK(enc[i] != 0, "cobs %s: zero in the encoding", name);
    }
}

static void test_cobs(void) {
    /* The examples of Cheshire and Baker's COBS as tabulated on its Wikipedia page. */
    cobs_case("00", (const uint8_t[]){0x00}, 1, (const uint8_t[]){0x01, 0x01}, 2);
    cobs_case("00 00", (const uint8_t[]){0, 0}, 2, (const uint8_t[]){1, 1, 1}, 3);
    cobs_case("00 11 00", (const uint8_t[]){0, 0x11, 0}, 3, (const uint8_t[]){1, 2, 0x11, 1}, 4);
    cobs_case("11 22 00 33", (const uint8_t[]){0x11, 0x22, 0, 0x33}, 4, (const uint8_t[]){3, 0x11, 0x22, 2, 0x33}, 5);
    cobs_case("11 22 33 44", (const uint8_t[]){0x11, 0x22, 0x33, 0x44}, 4,
              (const uint8_t[]){5, 0x11, 0x22, 0x33, 0x44}, 5);
    cobs_case("11 00 00 00", (const uint8_t[]){0x11, 0, 0, 0}, 4, (const uint8_t[]){2, 0x11, 1, 1, 1}, 5);
    uint8_t in[256], out[260];
    for (int i = 0; i < 254; i++) {
        in[i] = (uint8_t) (i + 1); /* 01 .. FE */
    }
    out[0] = 0xFF;
    memcpy(out + 1, in, 254);
    cobs_case("01..FE", in, 254, out, 255);
    uint8_t in2[255];
    for (int i = 0; i < 255; i++) {
        in2[i] = (uint8_t) i; /* 00 .. FE */
    }
    uint8_t out2[257];
    out2[0] = 0x01;
    out2[1] = 0xFF;
    memcpy(out2 + 2, in2 + 1, 254);
    cobs_case("00..FE", in2, 255, out2, 256);
    uint8_t bad[] = {0x05, 0x11, 0x22};
    uint8_t dec[8];
    CHECK(hl_cobs_decode(bad, 3, dec) < 0, "truncated COBS block accepted");
}

/* ---- two engines on a noisy line ---- */

static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t) rng_state;
}

typedef struct {
    uint8_t q[1 << 20];
    size_t head, tail;
} line;

typedef struct {
    int ppm_flip, ppm_drop, ppm_dup; /* per octet, parts per million */
} noise;

typedef struct {
    line *out;
    noise *n;
    uint32_t delivered;
    uint32_t stream_seed; /* messages of this direction are made from (seed, index) */
    int bad;
} side;

static void make_message(uint32_t seed, uint32_t index, uint8_t *buf, size_t *len) {
    uint32_t x = seed * 2654435761u ^ (index + 1) * 40503u;
    *len = (x % 7 == 0) ? 0 : (x >> 8) % (HL_MAX_PAYLOAD + 1);
    for (size_t i = 0; i < *len; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t) (x >> 16);
    }
}

static void put(void *ctx, const uint8_t *o, size_t n) {
    side *s = ctx;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = o[i];
        uint32_t r = rnd() % 1000000u;
        if ((int) r < s->n->ppm_drop) {
            continue;
        }
        if ((int) (rnd() % 1000000u) < s->n->ppm_flip) {
            b ^= (uint8_t) (1u << (rnd() % 8));
        }
        s->out->q[s->out->tail++ % sizeof s->out->q] = b;
        if ((int) (rnd() % 1000000u) < s->n->ppm_dup) {
            s->out->q[s->out->tail++ % sizeof s->out->q] = b;
        }
    }
}

static void deliver(void *ctx, const uint8_t *m, size_t n) {
    side *s = ctx; /* the side that receives: checks against the other direction's generator */
    uint8_t expect[HL_MAX_PAYLOAD];
    size_t len;
    make_message(s->stream_seed, s->delivered, expect, &len);
    if (n != len || memcmp(m, expect, n) != 0) {
        s->bad++;
    }
    s->delivered++;
}

/* Moves up to `max` octets waiting on `l` into `link` (one octet time per octet on the real line). */
static void carry(line *l, hl_link *link, size_t max) {
    for (size_t i = 0; i < max && l->head != l->tail; i++) {
        hl_receive_byte(link, l->q[l->head++ % sizeof l->q]);
    }
}

/* Sides are wired so that host's ctx is hs (output -> to_board, deliver checks board->host messages). */
static int run(const char *name, noise nz, uint32_t messages, uint32_t seed) {
    static line to_board, to_host;
    static hl_link host, board;
    memset(&to_board, 0, sizeof to_board);
    memset(&to_host, 0, sizeof to_host);
    rng_state = 0x9E3779B97F4A7C15ull ^ seed;
    side hs = {&to_board, &nz, 0, seed ^ 0xB0A4Du, 0};
    side bs = {&to_host, &nz, 0, seed ^ 0x4057u, 0};
    hl_init(&host, put, deliver, &hs, 20000, 0x11);
    hl_init(&board, put, deliver, &bs, 20000, 0x5A);
    hl_hello(&host);
    uint32_t sent_h = 0, sent_b = 0, now = 0;
    uint8_t buf[HL_MAX_PAYLOAD];
    size_t len;
    /* One tick = one octet time each way, so the line has the serial link's rate limit. */
    for (; now < 400000000u; now++) {
        if (hl_ready(&host) && sent_h < messages && hl_window_free(&host)) {
            make_message(bs.stream_seed, sent_h, buf, &len);
            hl_send(&host, buf, len) == 0 ? sent_h++ : 0;
        }
        if (hl_ready(&board) && sent_b < messages && hl_window_free(&board)) {
            make_message(hs.stream_seed, sent_b, buf, &len);
            hl_send(&board, buf, len) == 0 ? sent_b++ : 0;
        }
        carry(&to_board, &board, 1);
        carry(&to_host, &host, 1);
        hl_poll(&host, now);
        hl_poll(&board, now);
        if (bs.delivered == messages && hs.delivered == messages && host.unacked == host.next_seq
            && board.unacked == board.next_seq) {
            break;
        }
    }
    CHECK(bs.delivered == messages && hs.delivered == messages, "%s: delivered %u/%u to the board, %u/%u to the host",
          name, bs.delivered, messages, hs.delivered, messages);
    CHECK(bs.bad == 0 && hs.bad == 0, "%s: %d/%d messages damaged", name, bs.bad, hs.bad);
    printf("%-24s %u messages each way in %u octet times; retransmissions %u/%u, dropped: crc %u/%u framing %u/%u "
           "order %u/%u\n",
           name, messages, now, host.stats.retransmissions, board.stats.retransmissions, host.stats.dropped_bad_crc,
           board.stats.dropped_bad_crc, host.stats.dropped_bad_framing, board.stats.dropped_bad_framing,
           host.stats.dropped_out_of_order, board.stats.dropped_out_of_order);
    if (nz.ppm_flip + nz.ppm_drop + nz.ppm_dup > 0) {
        CHECK(host.stats.retransmissions + board.stats.retransmissions > 0, "%s: noise caused no retry", name);
    } else {
        CHECK(host.stats.retransmissions + board.stats.retransmissions == 0, "%s: retries on a clean line", name);
    }
    return 0;
}

static void test_board_restart(void) {
    static line to_board, to_host;
    static hl_link host, board;
    memset(&to_board, 0, sizeof to_board);
    memset(&to_host, 0, sizeof to_host);
    noise clean = {0, 0, 0};
    side hs = {&to_board, &clean, 0, 1, 0};
    side bs = {&to_host, &clean, 0, 2, 0};
    hl_init(&host, put, deliver, &hs, 500, 0x11);
    hl_init(&board, put, deliver, &bs, 500, 0x21);
    hl_hello(&host);
    uint8_t buf[HL_MAX_PAYLOAD];
    size_t len;
    uint32_t now = 0;
    int restarted = 0;
    for (; now < 200000 && !host.peer_reset; now++) {
        if (now == 20000 && !restarted) {
            hl_init(&board, put, deliver, &bs, 500, 0x22); /* power cycle: new session, no HELLO seen */
            restarted = 1;
        }
        if (hl_ready(&host) && hl_window_free(&host) && hs.delivered < 1000) {
            make_message(bs.stream_seed, 0, buf, &len);
            hl_send(&host, buf, len);
        }
        carry(&to_board, &board, SIZE_MAX);
        carry(&to_host, &host, SIZE_MAX);
        hl_poll(&host, now);
        hl_poll(&board, now);
    }
    CHECK(restarted && host.peer_reset && !hl_ready(&host), "board restart not detected (at %u)", now);
    hl_hello(&host);
    for (uint32_t t = 0; t < 5000 && !hl_ready(&host); t++, now++) {
        carry(&to_board, &board, SIZE_MAX);
        carry(&to_host, &host, SIZE_MAX);
        hl_poll(&host, now);
    }
    CHECK(hl_ready(&host) && host.peer_session == 0x22, "no new link after the restart");
    printf("board restart detected, link restarted with session %02x\n", host.peer_session);
}

int main(void) {
    test_crc32c();
    test_cobs();
    run("clean line", (noise){0, 0, 0}, 2000, 1);
    run("bit flips 50 ppm", (noise){50, 0, 0}, 2000, 2);
    run("drops 50 ppm", (noise){0, 50, 0}, 2000, 3);
    run("duplicates 50 ppm", (noise){0, 0, 50}, 2000, 4);
    run("all three 200 ppm each", (noise){200, 200, 200}, 2000, 5);
    test_board_restart();
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
