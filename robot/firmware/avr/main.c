/* cubebot rig firmware for the ATmega2560: the wire protocol of docs/protocol.md (version 3).
 *
 * The receive interrupt puts bytes in a ring buffer and acts on the emergency-stop byte at
 * once; the main loop cuts frames, checks their CRC-32, answers queries, and executes
 * sequenced frames exactly once: only the next number is executed, an accepted frame's answer
 * is kept in a replay cache for repeats, a refused frame leaves the expected number where it
 * was, and a gap or a damaged frame asks for a resend. The boot id counts resets in EEPROM.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <util/atomic.h>

#include "motion.h"
#include "rig.h"

#define ESTOP_BYTE 0x9B
#define FRAME_MAX 200
#define REPLAY 16
#define REPLY_MAX 80
#define CRC_DIGITS 8

/* -- the serial line ------------------------------------------------------------------- */

static volatile uint8_t rx_buf[256];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t estop_pending;     /* the stop notice still has to be sent */
static volatile uint8_t estopped, out_of_line;

ISR(USART0_RX_vect) {
    uint8_t c = UDR0;
    if (c == ESTOP_BYTE) {                  /* not a frame byte: stop now, wherever it came */
        if (!estopped) {
            if (motion_halt())
                out_of_line = 1;
            estopped = 1;
            estop_pending = 1;
        }
        return;
    }
    uint8_t next = (uint8_t)(rx_head + 1);
    if (next != rx_tail) {                  /* a full buffer drops the byte: the CRC tells */
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

static void uart_init(void) {
    UCSR0A = (1 << U2X0);
    UBRR0 = 16;                              /* 115200 baud at 16 MHz (2.1 % off) */
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);  /* 8N1 */
}

static void uart_put(uint8_t c) {
    while (!(UCSR0A & (1 << UDRE0)))
        ;
    UDR0 = c;
}

static int16_t uart_get(void) {
    int16_t c = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (rx_tail != rx_head) {
            c = rx_buf[rx_tail];
            rx_tail = (uint8_t)(rx_tail + 1);
        }
    }
    return c;
}

/* -- frames ---------------------------------------------------------------------------- */

static char boot_id[5];
static uint16_t next_seq;
static uint8_t holding;                     /* a stopped job: moves are refused */
static char job_id[9] = "-";
static uint16_t job_total;

typedef struct { uint16_t seq; uint8_t used; char text[REPLY_MAX]; } replay_t;
static replay_t replay[REPLAY];
static uint8_t replay_next;

/* the CRC-32 of zlib and Ethernet (reflected polynomial 0xEDB88320), a nibble at a time */
static const uint32_t crc_nibble[16] = {
    0x00000000UL, 0x1DB71064UL, 0x3B6E20C8UL, 0x26D930ACUL,
    0x76DC4190UL, 0x6B6B51F4UL, 0x4DB26158UL, 0x5005713CUL,
    0xEDB88320UL, 0xF00F9344UL, 0xD6D6A3E8UL, 0xCB61B38CUL,
    0x9B64C2B0UL, 0x86D3D2D4UL, 0xA00AE278UL, 0xBDBDF21CUL,
};

static uint32_t crc(const char *body, uint8_t len) {
    uint32_t c = 0xFFFFFFFFUL;
    for (uint8_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)body[i];
        c = (c >> 4) ^ crc_nibble[(c ^ b) & 0x0F];
        c = (c >> 4) ^ crc_nibble[(c ^ (b >> 4)) & 0x0F];
    }
    return ~c;
}

/* send "$<body>*CRC\n"; returns the frame in out (if given) for the replay cache */
static void send_frame(const char *body, char *out) {
    char tail[CRC_DIGITS + 3];
    uint8_t len = (uint8_t)strlen(body);
    snprintf(tail, sizeof tail, "*%08lX\n", (unsigned long)crc(body, len));
    uart_put('$');
    for (uint8_t i = 0; i < len; i++)
        uart_put((uint8_t)body[i]);
    for (uint8_t i = 0; tail[i]; i++)
        uart_put((uint8_t)tail[i]);
    if (out) {
        out[0] = '$';
        strncpy(out + 1, body, REPLY_MAX - CRC_DIGITS - 4);
        out[REPLY_MAX - CRC_DIGITS - 3] = 0;
        strcat(out, tail);
    }
}

static void send_text(const char *frame) {
    for (uint8_t i = 0; frame[i]; i++)
        uart_put((uint8_t)frame[i]);
}

static const char *state_word(void) {
    if (estopped) return "ESTOP";
    if (holding) return "STOPPED";
    return motion_length() ? "BUSY" : "READY";
}

/* " N= D= L= B=" with the expected number n */
static void counters(char *out, uint8_t size, uint16_t n) {
    snprintf(out, size, " N=%u D=%u L=%u B=%s", n, motion_done(), motion_length(), boot_id);
}

static int16_t seq_after(uint16_t seq, uint16_t base) {
    return (int16_t)(uint16_t)(seq - base);   /* serial number arithmetic modulo 2^16 */
}

static void resend_request(void) {
    char body[48];
    char tail[40];
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "N RESEND%s", tail);
    send_frame(body, 0);
}

/* -- queries --------------------------------------------------------------------------- */

static void answer_query(const char *tag, const char *word) {
    char body[96];
    char tail[40];
    counters(tail, sizeof tail, next_seq);
    if (!strcmp(word, "HELLO"))
        snprintf(body, sizeof body, "R%s HELLO PROTO=%d FW=%s STATE=%s%s", tag,
                 PROTOCOL_VERSION, FIRMWARE_VERSION, state_word(), tail);
    else if (!strcmp(word, "RIG"))
        snprintf(body, sizeof body, "R%s RIG FACES=%s STEPS=%d MICRO=%d QUEUE=%d PAR=%d SIZE=%d B=%s",
                 tag, RIG_FACES, STEPS_PER_QUARTER, MICROSTEPS, QUEUE_DEPTH,
                 PARALLEL_OPPOSITE, CUBE_SIZE, boot_id);
    else if (!strcmp(word, "STATUS"))
        snprintf(body, sizeof body, "R%s STATUS STATE=%s%s", tag, state_word(), tail);
    else if (!strcmp(word, "JOB"))
        snprintf(body, sizeof body, "R%s JOB STATE=%s J=%s JD=%u JT=%u OUT=%d L=%u B=%s", tag,
                 state_word(), job_id, motion_job_done(), job_total, out_of_line,
                 motion_length(), boot_id);
    else   /* CUBE and anything else: this firmware does not know its cube */
        snprintf(body, sizeof body, "R%s ERR BADCMD WORD=%s B=%s", tag, word, boot_id);
    send_frame(body, 0);
}

/* -- sequenced frames ------------------------------------------------------------------ */

static int8_t face_index(char f) {
    const char *p = strchr(RIG_FACES, f);
    return (f && p) ? (int8_t)(p - RIG_FACES) : -1;
}

/* parse "U", "U'", "U2" into a turn; returns 0 for a bad move, -1 for a face without motor */
static int8_t parse_turn(const char *m, uint8_t *face, int8_t *quarters) {
    if (!strchr("URFDLB", m[0]) || !m[0])
        return 0;
    if (m[1] == 0) *quarters = 1;
    else if (m[1] == '\'' && m[2] == 0) *quarters = -1;
    else if (m[1] == '2' && m[2] == 0) *quarters = 2;
    else return 0;
    int8_t f = face_index(m[0]);
    if (f < 0)
        return -1;
    *face = (uint8_t)f;
    return 1;
}

/* returns 0 when accepted, else the refusal code written in code */
static uint8_t execute(const char *word, char **args, uint8_t nargs, char *code, uint8_t size) {
    if (!strcmp(word, "CLEAR")) {
        estopped = 0; holding = 0; out_of_line = 0;
        motion_hold(0);
        return 0;
    }
    if (!strcmp(word, "JOB")) {
        if (nargs < 2) { snprintf(code, size, "BADCMD WORD=JOB"); return 1; }
        if (estopped) { snprintf(code, size, "ESTOP"); return 1; }
        strncpy(job_id, args[0], 8); job_id[8] = 0;
        job_total = (uint16_t)atoi(args[1]);
        motion_job_reset();
        holding = 0;
        motion_hold(0);
        return 0;
    }
    if (!strcmp(word, "STOP")) {
        motion_drop_queued();
        holding = 1;
        motion_hold(1);
        return 0;
    }
    if (!strcmp(word, "RESUME")) {
        if (!holding || nargs < 1 || strcmp(args[0], job_id)) {
            snprintf(code, size, "NOJOB J=%s", job_id);
            return 1;
        }
        holding = 0;
        motion_hold(0);
        return 0;
    }
    if (strcmp(word, "MOVE")) { snprintf(code, size, "BADCMD WORD=%s", word); return 1; }
    slot_t slot = {0, {0, 0}, {0, 0}};
    if (nargs < 1 || nargs > 2) { snprintf(code, size, "BADMOVE"); return 1; }
    for (uint8_t i = 0; i < nargs; i++) {
        int8_t ok = parse_turn(args[i], &slot.face[i], &slot.quarters[i]);
        if (ok == 0) { snprintf(code, size, "BADMOVE"); return 1; }
        if (ok < 0) { snprintf(code, size, "NOMOTOR FACE=%c", args[i][0]); return 1; }
    }
    slot.count = nargs;
    if (estopped) { snprintf(code, size, "ESTOP"); return 1; }
    if (holding) { snprintf(code, size, "STOPPED"); return 1; }
    if (!motion_push(&slot)) { snprintf(code, size, "QUEUE_FULL DEPTH=%d", QUEUE_DEPTH); return 1; }
    return 0;
}

static void answer_sequenced(uint16_t seq, const char *word, char **args, uint8_t nargs) {
    int16_t ahead = seq_after(seq, next_seq);
    if (ahead > 0) {                          /* a gap: ask for the one expected */
        resend_request();
        return;
    }
    if (ahead < 0) {                          /* a repeat: the stored answer, never again */
        for (uint8_t i = 0; i < REPLAY; i++)
            if (replay[i].used && replay[i].seq == seq) {
                send_text(replay[i].text);
                return;
            }
        char body[64], tail[40];
        counters(tail, sizeof tail, next_seq);
        snprintf(body, sizeof body, "A%u ERR STALE%s", seq, tail);
        send_frame(body, 0);
        return;
    }
    char code[24];
    char body[80], tail[40];
    if (execute(word, args, nargs, code, sizeof code)) {   /* refused: N stays */
        counters(tail, sizeof tail, next_seq);
        snprintf(body, sizeof body, "A%u ERR %s%s", seq, code, tail);
        send_frame(body, 0);
        return;
    }
    next_seq = (uint16_t)(seq + 1);
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "A%u OK%s", seq, tail);
    replay_t *r = &replay[replay_next];
    replay_next = (uint8_t)((replay_next + 1) % REPLAY);
    r->seq = seq;
    r->used = 1;
    send_frame(body, r->text);
}

/* a whole frame between '$' and '\n' (exclusive); returns 0 when damaged */
static uint8_t handle_frame(char *frame, uint8_t len) {
    char *star = 0;
    for (uint8_t i = 0; i < len; i++)
        if (frame[i] == '*') star = frame + i;
    if (!star || frame + len - star != CRC_DIGITS + 1)
        return 0;
    uint8_t body_len = (uint8_t)(star - frame);
    char hex[CRC_DIGITS + 1];
    memcpy(hex, star + 1, CRC_DIGITS);
    hex[CRC_DIGITS] = 0;
    for (uint8_t i = 0; i < CRC_DIGITS; i++)  /* upper-case hex digits only, as sent */
        if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'A' && hex[i] <= 'F')))
            return 0;
    if (strtoul(hex, 0, 16) != crc(frame, body_len))
        return 0;
    *star = 0;
    char *words[8];
    uint8_t n = 0;
    for (char *t = strtok(frame, " "); t && n < 8; t = strtok(0, " "))
        words[n++] = t;
    if (n < 2)
        return 0;
    char kind = words[0][0];
    if (kind == 'Q') {
        answer_query(words[0] + 1, words[1]);
    } else if (kind == 'S') {
        char *argv[4];
        uint8_t argc = 0;
        for (uint8_t i = 2; i < n && argc < 4; i++)
            if (!strchr(words[i], '='))
                argv[argc++] = words[i];
        answer_sequenced((uint16_t)atol(words[0] + 1), words[1], argv, argc);
    }
    /* A, R, N, E: the rig's own frames echoed back by the line: not for us */
    return 1;
}

static void boot(void) {
    uint16_t boots = eeprom_read_word((uint16_t *)0);
    boots = (uint16_t)(boots * 40503U + 1U);  /* a new id every reset, stored for the next */
    eeprom_update_word((uint16_t *)0, boots);
    snprintf(boot_id, sizeof boot_id, "%04X", boots);
}

int main(void) {
    static char frame[FRAME_MAX + 1];
    uint8_t len = 0, inside = 0;
    uint16_t blink = 0;
    boot();
    uart_init();
    motion_init();
    DDRB |= (1 << PB7);                         /* the Mega's LED (D13) */
    sei();
    for (;;) {
        /* the LED: on while the motors turn, blinking while emergency-stopped */
        if (estopped ? (++blink & 0x4000) : motion_length() != 0)
            PORTB |= (1 << PB7);
        else
            PORTB &= (uint8_t)~(1 << PB7);
        if (estop_pending) {
            char body[64], tail[40];
            estop_pending = 0;
            counters(tail, sizeof tail, next_seq);
            snprintf(body, sizeof body, "E ESTOP%s%s", tail, out_of_line ? " OUT=1" : "");
            send_frame(body, 0);
        }
        int16_t c = uart_get();
        if (c < 0)
            continue;
        if (c == '$') {                       /* a '$' always starts afresh */
            if (inside)
                resend_request();             /* the frame before it was cut short */
            inside = 1;
            len = 0;
        } else if (!inside) {
            continue;
        } else if (c == '\n') {
            inside = 0;
            frame[len] = 0;
            if (!handle_frame(frame, len))
                resend_request();
        } else if (len >= FRAME_MAX || c < 0x20 || c > 0x7E) {
            inside = 0;                       /* too long or a stray byte: damaged */
            resend_request();
        } else {
            frame[len++] = (char)c;
        }
    }
}
