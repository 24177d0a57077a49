/* The host link's firmware half: see hostlink.h and docs/host-link.md. */
#include "hostlink.h"

#include <string.h>

/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), a byte at a time from a 256-entry table built on first use:
 * the board's core checks a 1 KB frame in a few thousand instructions, while the line brings the next one. */
static uint32_t crc_table[256];

uint32_t hl_crc32c(uint32_t crc, const uint8_t *data, size_t length) {
    if (crc_table[1] == 0) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int b = 0; b < 8; b++) {
                c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
            }
            crc_table[i] = c;
        }
    }
    crc = ~crc;
    for (size_t i = 0; i < length; i++) {
        crc = (crc >> 8) ^ crc_table[(crc ^ data[i]) & 0xFFu];
    }
    return ~crc;
}

size_t hl_cobs_encode(const uint8_t *in, size_t length, uint8_t *out) {
    /* Consistent Overhead Byte Stuffing (Cheshire and Baker): each block is a code octet (1 + the non-zero octets that
     * follow) standing for those octets and one zero; a full block (code 0xFF) has no zero. A block that fills up at
     * the very end of the input opens no new block, so 254 non-zero octets encode to FF and themselves only. */
    size_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < length; i++) {
        if (in[i] != 0) {
            out[o++] = in[i];
            code++;
        }
        if (in[i] == 0 || code == 0xFF) {
            out[code_at] = code;
            code = 1;
            code_at = o;
            if (in[i] == 0 || i + 1 < length) {
                o++;
            }
        }
    }
    if (code_at < o) {
        out[code_at] = code;
    }
    return o;
}

long hl_cobs_decode(const uint8_t *in, size_t length, uint8_t *out) {
    size_t i = 0, o = 0;
    while (i < length) {
        uint8_t code = in[i++];
        if (code == 0 || i + code - 1u > length) {
            return -1;
        }
        for (uint8_t k = 1; k < code; k++) {
            if (in[i] == 0) {
                return -1;
            }
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < length) {
            out[o++] = 0;
        }
    }
    return (long) o;
}

static void send_frame(hl_link *l, uint8_t kind, uint8_t seq, const uint8_t *payload, size_t length) {
    uint8_t frame[HL_MAX_FRAME];
    uint8_t wire[HL_MAX_FRAME + HL_MAX_FRAME / 254 + 2];
    frame[0] = kind;
    frame[1] = seq;
    frame[2] = l->expected;
    frame[3] = l->session;
    if (length) {
        memcpy(frame + HL_HEADER, payload, length);
    }
    uint32_t crc = hl_crc32c(0, frame, HL_HEADER + length);
    size_t n = HL_HEADER + length;
    frame[n++] = (uint8_t) (crc >> 24);
    frame[n++] = (uint8_t) (crc >> 16);
    frame[n++] = (uint8_t) (crc >> 8);
    frame[n++] = (uint8_t) crc;
    size_t w = hl_cobs_encode(frame, n, wire);
    wire[w++] = 0;
    l->output(l->ctx, wire, w);
    l->stats.frames_sent++;
}

static void restart_numbering(hl_link *l) {
    l->expected = 0;
    l->next_seq = 0;
    l->unacked = 0;
}

void hl_init(hl_link *l, hl_output_fn output, hl_deliver_fn deliver, void *ctx, uint32_t rto, uint8_t session) {
    memset(l, 0, sizeof *l);
    l->output = output;
    l->deliver = deliver;
    l->ctx = ctx;
    l->rto = rto;
    l->session = session;
}

unsigned hl_window_free(const hl_link *l) {
    return HL_WINDOW - (uint8_t) (l->next_seq - l->unacked);
}

int hl_send(hl_link *l, const uint8_t *message, size_t length) {
    if (length > HL_MAX_PAYLOAD || hl_window_free(l) == 0) {
        return -1;
    }
    uint8_t seq = l->next_seq++;
    unsigned slot = seq % HL_WINDOW;
    memcpy(l->tx_payload[slot], message, length);
    l->tx_length[slot] = (uint16_t) length;
    if (seq == l->unacked) {
        l->sent_at = l->now; /* the timer runs for the oldest unacknowledged frame */
    }
    send_frame(l, HL_DATA, seq, message, length);
    return 0;
}

/* A cumulative acknowledgement: every frame before `ack` arrived. Ignores acks outside the window. */
static void take_ack(hl_link *l, uint8_t ack) {
    uint8_t in_flight = (uint8_t) (l->next_seq - l->unacked);
    uint8_t acked = (uint8_t) (ack - l->unacked);
    if (acked == 0 || acked > in_flight) {
        return;
    }
    l->unacked = ack;
    l->sent_at = l->now;
}

static void process_frame(hl_link *l, const uint8_t *f, size_t n) {
    if (n < HL_HEADER + HL_CRC || n > HL_MAX_FRAME) {
        l->stats.dropped_bad_crc++;
        return;
    }
    uint32_t crc = ((uint32_t) f[n - 4] << 24) | ((uint32_t) f[n - 3] << 16) | ((uint32_t) f[n - 2] << 8) | f[n - 1];
    if (hl_crc32c(0, f, n - HL_CRC) != crc) {
        l->stats.dropped_bad_crc++;
        return;
    }
    l->stats.frames_received++;
    uint8_t kind = f[0], seq = f[1], ack = f[2], session = f[3];
    if (kind == HL_HELLO) {
        /* The host (re)starts the link: whatever was in flight either way is abandoned by both sides. */
        if (l->peer_known) {
            l->peer_restarts++;
        }
        l->peer_known = 1;
        l->peer_session = session;
        restart_numbering(l);
        send_frame(l, HL_HELLO_ACK, 0, 0, 0);
        return;
    }
    if (kind == HL_HELLO_ACK) {
        if (l->hello_pending) {
            l->hello_pending = 0;
            l->peer_known = 1;
            l->peer_session = session;
            l->peer_reset = 0;
            restart_numbering(l);
        }
        return;
    }
    if (!l->peer_known) {
        if (!l->hello_pending) {
            /* A board that restarted hears a host that did not: its ACK, with the new session, tells the host. */
            send_frame(l, HL_ACK, 0, 0, 0);
        }
        return; /* only a HELLO (or the answer to ours) starts a link */
    }
    if (session != l->peer_session) {
        l->peer_reset = 1; /* the other side restarted without a HELLO: a board reset; the host must say HELLO again */
        return;
    }
    take_ack(l, ack);
    if (kind == HL_DATA) {
        if (seq == l->expected) {
            l->expected++;
            send_frame(l, HL_ACK, 0, 0, 0);
            l->deliver(l->ctx, f + HL_HEADER, n - HL_HEADER - HL_CRC);
        } else {
            l->stats.dropped_out_of_order++;
            send_frame(l, HL_ACK, 0, 0, 0); /* says again what we expect: the sender goes back to it */
        }
    }
}

void hl_receive_byte(hl_link *l, uint8_t octet) {
    if (octet != 0) {
        if (l->rx_len < sizeof l->rx_buf) {
            l->rx_buf[l->rx_len++] = octet;
        } else {
            l->rx_overflow = 1;
        }
        return;
    }
    if (l->rx_len == 0) {
        return; /* back-to-back delimiters: the sender resynchronises with an extra 0x00 */
    }
    uint8_t frame[HL_MAX_FRAME + HL_MAX_FRAME / 254 + 2];
    long n = l->rx_overflow ? -1 : hl_cobs_decode(l->rx_buf, l->rx_len, frame);
    l->rx_len = 0;
    l->rx_overflow = 0;
    if (n < 0 || (size_t) n > HL_MAX_FRAME) {
        l->stats.dropped_bad_framing++;
        return;
    }
    process_frame(l, frame, (size_t) n);
}

void hl_hello(hl_link *l) {
    l->hello_pending = 1;
    l->peer_known = 0;
    restart_numbering(l);
    l->sent_at = l->now;
    send_frame(l, HL_HELLO, 0, 0, 0);
}

int hl_ready(const hl_link *l) {
    return l->peer_known && !l->hello_pending && !l->peer_reset;
}

void hl_poll(hl_link *l, uint32_t now) {
    l->now = now;
    if (l->hello_pending) {
        if (now - l->sent_at >= l->rto) {
            l->sent_at = now;
            send_frame(l, HL_HELLO, 0, 0, 0);
            l->stats.retransmissions++;
        }
        return;
    }
    if (l->unacked == l->next_seq || now - l->sent_at < l->rto) {
        return;
    }
    /* Go back N: resend every unacknowledged frame, oldest first. */
    for (uint8_t seq = l->unacked; seq != l->next_seq; seq++) {
        unsigned slot = seq % HL_WINDOW;
        send_frame(l, HL_DATA, seq, l->tx_payload[slot], l->tx_length[slot]);
        l->stats.retransmissions++;
    }
    l->sent_at = now;
}
