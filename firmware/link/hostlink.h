/*
 * The host link: a reliable, framed message channel over a byte stream (the board's UART), the firmware half.
 * The host driver's rnic.transport.serial.HostLink is the other half; both follow docs/host-link.md.
 *
 * Frame on the wire: COBS(kind, seq, ack, session, payload..., crc32c[4]) followed by one 0x00 delimiter.
 * A frame that does not decode, is too short or too long, or fails its CRC is dropped; go-back-N with cumulative
 * acknowledgements and a retransmission timer turns every lost, corrupted or duplicated byte into a retry.
 *
 * The engine is portable C99 without dynamic memory: the caller feeds received octets (hl_receive_byte), calls
 * hl_poll with the current time, and supplies an output function for transmitted octets. Time is in arbitrary ticks
 * (the firmware uses microseconds of its timer).
 */
#ifndef HOSTLINK_H
#define HOSTLINK_H

#include <stddef.h>
#include <stdint.h>

#define HL_MAX_PAYLOAD 1024u            /* octets of message in one DATA frame */
#define HL_HEADER 4u                    /* kind, seq, ack, session */
#define HL_CRC 4u
#define HL_MAX_FRAME (HL_HEADER + HL_MAX_PAYLOAD + HL_CRC)
#define HL_WINDOW 8u                    /* DATA frames in flight, unacknowledged */

/* Frame kinds. */
enum {
    HL_DATA = 1,      /* carries one message; seq numbers it */
    HL_ACK = 2,       /* acknowledges: ack = the next seq expected */
    HL_HELLO = 3,     /* host -> board: start (or restart) the link; both sides restart their numbering at 0 */
    HL_HELLO_ACK = 4  /* board -> host: answers HELLO, carries the board's session */
};

/* Link statistics, for the host's INFO query and the tests. */
typedef struct {
    uint32_t frames_sent;
    uint32_t frames_received;
    uint32_t retransmissions;
    uint32_t dropped_bad_crc;      /* decoded but CRC (or length) wrong */
    uint32_t dropped_bad_framing;  /* COBS error or overlong frame */
    uint32_t dropped_out_of_order; /* a DATA frame whose seq was not the expected one (a duplicate or after a loss) */
} hl_stats;

typedef void (*hl_output_fn)(void *ctx, const uint8_t *octets, size_t length);
typedef void (*hl_deliver_fn)(void *ctx, const uint8_t *message, size_t length);

typedef struct {
    /* configuration */
    hl_output_fn output;
    hl_deliver_fn deliver;
    void *ctx;
    uint32_t rto;        /* retransmission timeout in ticks */
    uint8_t session;     /* this side's session number (the board changes it at every power-on) */

    /* receiver */
    uint8_t rx_buf[HL_MAX_FRAME + HL_MAX_FRAME / 254 + 2];
    size_t rx_len;
    int rx_overflow;
    uint8_t expected;    /* next DATA seq to deliver */

    /* sender: a ring of unacknowledged DATA frames */
    uint8_t tx_payload[HL_WINDOW][HL_MAX_PAYLOAD];
    uint16_t tx_length[HL_WINDOW];
    uint8_t next_seq;    /* seq of the next new DATA frame */
    uint8_t unacked;     /* seq of the oldest unacknowledged DATA frame */
    uint32_t sent_at;    /* when the oldest unacknowledged frame was (re)sent */
    uint32_t now;

    /* the peer */
    uint8_t peer_session;
    int peer_known;
    uint32_t peer_restarts; /* HELLOs after the first one: the host restarted its side */
    int hello_pending;      /* host side: HELLO sent, HELLO_ACK not yet seen */
    int peer_reset;         /* host side: a frame came with another session than the HELLO_ACK's: the board restarted */

    hl_stats stats;
} hl_link;

/* Sets up a link; nothing is sent until the host's HELLO (the board answers) or hl_send. */
void hl_init(hl_link *l, hl_output_fn output, hl_deliver_fn deliver, void *ctx, uint32_t rto, uint8_t session);

/* Host side: (re)starts the link with a HELLO, resent every rto until the HELLO_ACK; hl_ready() says when it came. */
void hl_hello(hl_link *l);

/* Whether the link is up: a HELLO was answered (host side) or received (board side). */
int hl_ready(const hl_link *l);

/* Feeds one octet received from the line. Complete, valid frames are processed at once (deliver is called from here). */
void hl_receive_byte(hl_link *l, uint8_t octet);

/* Advances time to `now` (ticks, wrapping); retransmits when the oldest unacknowledged frame timed out. */
void hl_poll(hl_link *l, uint32_t now);

/* Queues one message (<= HL_MAX_PAYLOAD octets) and sends it; returns 0, or -1 when the window is full or too long. */
int hl_send(hl_link *l, const uint8_t *message, size_t length);

/* How many more messages hl_send accepts now. */
unsigned hl_window_free(const hl_link *l);

/* Primitives, exposed for the tests and the host-side cross-check. */
uint32_t hl_crc32c(uint32_t crc, const uint8_t *data, size_t length); /* RFC 3720 CRC-32C: init/final xor inside */
size_t hl_cobs_encode(const uint8_t *in, size_t length, uint8_t *out); /* out: length + length/254 + 1 octets */
long hl_cobs_decode(const uint8_t *in, size_t length, uint8_t *out);   /* -1 on a malformed encoding */

#endif
