/*
 * The firmware's host-link engine as a native program on stdin/stdout, for the host driver's cross-check
 * (testbench HostLinkFirmwareTest): the board side of the link, answering each message with its octets reversed and
 * XORed with 0xA5 (so a loop that bypassed this program would not pass). The message "RESTART" makes it start over
 * with a new session without a HELLO, as a board reset does; "STATS" answers with its counters as text.
 */
#define _POSIX_C_SOURCE 200809L
#include "hostlink.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static hl_link link_;
static uint8_t session = 0x40;
static int restart_requested;

static uint32_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint32_t) ((uint64_t) t.tv_sec * 1000000u + (uint64_t) t.tv_nsec / 1000u);
}

static void output(void *ctx, const uint8_t *o, size_t n) {
    (void) ctx;
    while (n > 0) {
        ssize_t w = write(1, o, n);
        if (w <= 0) {
            _exit(2);
        }
        o += w;
        n -= (size_t) w;
    }
}

static void deliver(void *ctx, const uint8_t *m, size_t n) {
    (void) ctx;
    uint8_t answer[HL_MAX_PAYLOAD];
    if (n == 7 && memcmp(m, "RESTART", 7) == 0) {
        restart_requested = 1;
        return;
    }
    if (n == 5 && memcmp(m, "STATS", 5) == 0) {
        int k = snprintf((char *) answer, sizeof answer, "retransmissions %u crc %u framing %u order %u",
                         (unsigned) link_.stats.retransmissions, (unsigned) link_.stats.dropped_bad_crc,
                         (unsigned) link_.stats.dropped_bad_framing, (unsigned) link_.stats.dropped_out_of_order);
        hl_send(&link_, answer, (size_t) k);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        answer[i] = m[n - 1 - i] ^ 0xA5;
    }
    /* The host sends at most a window ahead of our answers only if it waits for them; if ours is full, wait. */
    while (hl_send(&link_, answer, n) != 0) {
        struct pollfd p = {0, POLLIN, 0};
        if (poll(&p, 1, 1) > 0) {
            uint8_t b[512];
            ssize_t r = read(0, b, sizeof b);
            if (r <= 0) {
                _exit(0);
            }
            for (ssize_t i = 0; i < r; i++) {
                hl_receive_byte(&link_, b[i]);
            }
        }
        hl_poll(&link_, now_us());
    }
}

int main(void) {
    hl_init(&link_, output, deliver, 0, 50000, session);
    for (;;) {
        struct pollfd p = {0, POLLIN, 0};
        if (poll(&p, 1, 2) > 0) {
            uint8_t b[4096];
            ssize_t r = read(0, b, sizeof b);
            if (r <= 0) {
                return 0;
            }
            for (ssize_t i = 0; i < r; i++) {
                hl_receive_byte(&link_, b[i]);
            }
        }
        hl_poll(&link_, now_us());
        if (restart_requested) {
            restart_requested = 0;
            hl_init(&link_, output, deliver, 0, 50000, ++session);
        }
    }
}
