/* The protocol's state: what to do with each checked frame (docs/protocol.md).
 *
 * Queries are answered at once. A sequenced frame is executed only when its number is the one
 * expected (N); an accepted frame's answer is kept in the replay cache with the request's CRC,
 * so a repeat gets the same answer without running again and a frame with a known number but
 * other content (another host) gets ERR CONFLICT; a refused frame leaves N where it was and is
 * not cached; a frame ahead of N is not held (the protocol allows that) but asks for N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef TEST_HOOKS
#include <util/delay.h>
#endif

#include "config.h"
#include "frame.h"
#include "job.h"
#include "motion.h"
#include "protocol.h"
#include "uart.h"

#define REPLY_MAX 56                /* "$A65535 OK N=65535 D=65535 L=8 B=FFFF*XXXXXXXX\n" */
#define WORDS_MAX 8
#ifdef RIG_KIND_FLIPPER
#define CODE_MAX 32                 /* "BADACT WHY=RANGE JOINT=HOLDER" */
#else
#define CODE_MAX 28                 /* "QUEUE_FULL DEPTH=8", "BADSLOT WHY=ADJACENT" */
#endif

typedef struct { uint16_t seq; uint32_t check; uint8_t used; char text[REPLY_MAX]; } replay_t;

static uint16_t next_seq;
static uint8_t holding;                      /* a stopped job: moves are refused */
static replay_t replay[REPLAY_DEPTH];
static uint8_t replay_next;

static const char *state_word(void) {
    if (motion_estopped()) return "ESTOP";
    if (holding) return "STOPPED";
    return motion_length() ? "BUSY" : "READY";
}

/* " N= D= L= B=" with the expected number n */
static void counters(char *out, uint8_t size, uint16_t n) {
    snprintf(out, size, " N=%u D=%u L=%u B=%s", n, motion_done(), motion_length(),
             job_boot_id());
}

static int16_t seq_after(uint16_t seq, uint16_t base) {
    return (int16_t)(uint16_t)(seq - base);   /* serial number arithmetic modulo 2^16 */
}

void protocol_resend(void) {
    char body[48], tail[40];
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "N RESEND%s", tail);
    frame_send(body, 0, 0);
}

void protocol_banner(void) {
    char body[96], tail[40];
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "H BOOT PROTO=%d FW=%s RST=%s%s", PROTOCOL_VERSION,
             FIRMWARE_VERSION, job_reset_cause(), tail);
    frame_send(body, 0, 0);
}

void protocol_estop_notice(void) {
    char body[64], tail[40];
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "E ESTOP%s%s", tail, motion_out_of_line() ? " OUT=1" : "");
    frame_send(body, 0, 0);
}

/* -- queries ------------------------------------------------------------------------------ */

static void answer_query(const char *tag, const char *word) {
    char body[112], tail[40];
    counters(tail, sizeof tail, next_seq);
    if (!strcmp(word, "HELLO"))
        snprintf(body, sizeof body, "R%s HELLO PROTO=%d FW=%s STATE=%s RST=%s%s", tag,
                 PROTOCOL_VERSION, FIRMWARE_VERSION, state_word(), job_reset_cause(), tail);
#ifdef RIG_KIND_FLIPPER
    /* an action rig: its kind, and only IDLE (its speeds are the host's model, section 15.1) */
    else if (!strcmp(word, "RIG"))
        snprintf(body, sizeof body, "R%s RIG KIND=%s QUEUE=%d SIZE=%d B=%s", tag, RIG_KIND,
                 QUEUE_DEPTH, CUBE_SIZE, job_boot_id());
    else if (!strcmp(word, "LIMITS"))
        snprintf(body, sizeof body, "R%s LIMITS IDLE=%u B=%s", tag, IDLE_OFF_MS, job_boot_id());
    else if (!strcmp(word, "POSE")) {          /* where the accepted actions leave it (15.4) */
        int8_t quarters;
        uint8_t closed;
        char up, front;
        motion_pose(&quarters, &closed);
        motion_orientation(&up, &front);
        snprintf(body, sizeof body, "R%s POSE HOLDER:%+d COVER:%s O=%c%c B=%s", tag,
                 quarters * 90, closed ? "CLOSED" : "OPEN", up, front, job_boot_id());
    }
#else
    else if (!strcmp(word, "RIG"))
        snprintf(body, sizeof body, "R%s RIG FACES=%s STEPS=%d MICRO=%d QUEUE=%d PAR=%d SIZE=%d B=%s",
                 tag, RIG_FACES, STEPS_PER_QUARTER, MICROSTEPS, QUEUE_DEPTH,
                 PARALLEL_OPPOSITE, CUBE_SIZE, job_boot_id());
    else if (!strcmp(word, "LIMITS"))
        snprintf(body, sizeof body, "R%s LIMITS VMAX=%lu ACC=%lu IDLE=%u SETTLE=%u RATE=%lu B=%s",
                 tag, (unsigned long)MAX_SPEED_SPS, (unsigned long)ACCEL_SPS2, IDLE_OFF_MS,
                 SETTLE_MS, (unsigned long)MAX_STEP_RATE_HZ, job_boot_id());
#endif
    else if (!strcmp(word, "STATUS"))
        snprintf(body, sizeof body, "R%s STATUS STATE=%s%s", tag, state_word(), tail);
    else if (!strcmp(word, "JOB"))
        snprintf(body, sizeof body, "R%s JOB STATE=%s J=%s JD=%u JT=%u OUT=%d L=%u B=%s", tag,
                 state_word(), job_id(), motion_job_done(), job_total(), motion_out_of_line(),
                 motion_length(), job_boot_id());
    else   /* CUBE and anything else: this firmware does not know its cube */
        snprintf(body, sizeof body, "R%s ERR BADCMD WORD=%s B=%s", tag, word, job_boot_id());
    frame_send(body, 0, 0);
}

/* -- sequenced frames --------------------------------------------------------------------- */

#ifdef RIG_KIND_FLIPPER
/* "FLIP", "SPIN+90", "TURN-180" (docs/protocol.md 15.2, docs/rigs.md); 0 when it is not an
   action of the flipper */
static uint8_t parse_action(const char *a, slot_t *slot) {
    const char *angle;
    if (!strcmp(a, "FLIP")) {
        slot->verb = VERB_FLIP;
        slot->quarters = 0;
        return 1;
    }
    if (!strncmp(a, "SPIN", 4)) slot->verb = VERB_SPIN;
    else if (!strncmp(a, "TURN", 4)) slot->verb = VERB_TURN;
    else return 0;
    angle = a + 4;
    int8_t sign = angle[0] == '+' ? 1 : angle[0] == '-' ? -1 : 0;
    if (!sign) return 0;
    if (!strcmp(angle + 1, "90")) slot->quarters = sign;
    else if (!strcmp(angle + 1, "180")) slot->quarters = (int8_t)(2 * sign);
    else return 0;
    return 1;
}

/* returns 0 when accepted, else writes the refusal (code and fields); an action is judged
   against the holder's angle the queued actions will leave (motion_push) */
static uint8_t execute_act(char **args, uint8_t nargs, char *code, uint8_t size) {
    slot_t slot;
    if (nargs != 1) { snprintf(code, size, "BADCMD WORD=ACT"); return 1; }
    if (!parse_action(args[0], &slot)) { snprintf(code, size, "BADACT WHY=UNKNOWN"); return 1; }
    if (motion_estopped()) { snprintf(code, size, "ESTOP"); return 1; }
    if (holding) { snprintf(code, size, "STOPPED"); return 1; }
    uint8_t pushed = motion_push(&slot);  /* checks the stop again, with interrupts off */
    if (pushed == PUSH_ESTOP) { snprintf(code, size, "ESTOP"); return 1; }
    if (pushed == PUSH_RANGE) { snprintf(code, size, "BADACT WHY=RANGE JOINT=HOLDER"); return 1; }
    if (pushed == PUSH_FULL) { snprintf(code, size, "QUEUE_FULL DEPTH=%d", QUEUE_DEPTH); return 1; }
    return 0;
}
#else

static int8_t face_index(char f) {
    const char *p = strchr(RIG_FACES, f);
    return (f && p) ? (int8_t)(p - RIG_FACES) : -1;
}

static char opposite(char f) {
    switch (f) {
    case 'U': return 'D';
    case 'D': return 'U';
    case 'R': return 'L';
    case 'L': return 'R';
    case 'F': return 'B';
    default: return 'F';
    }
}

/* "U", "U'", "U2" (docs/protocol.md, "MOVE"); 0 when it is not a turn */
static uint8_t parse_turn(const char *m, int8_t *quarters) {
    if (!m[0] || !strchr("URFDLB", m[0]))
        return 0;
    if (m[1] == 0) *quarters = 1;
    else if (m[1] == '\'' && m[2] == 0) *quarters = -1;
    else if (m[1] == '2' && m[2] == 0) *quarters = 2;
    else return 0;
    return 1;
}

/* returns 0 when accepted, else writes the refusal (code and fields) */
static uint8_t execute_move(char **args, uint8_t nargs, char *code, uint8_t size) {
    slot_t slot = {0, {0, 0}, {0, 0}};
    if (nargs == 0) { snprintf(code, size, "BADMOVE"); return 1; }
    for (uint8_t i = 0; i < nargs; i++) {
        int8_t quarters;
        if (!parse_turn(args[i], &quarters)) { snprintf(code, size, "BADMOVE"); return 1; }
        if (i < 2) slot.quarters[i] = quarters;
    }
    if (nargs > 2) { snprintf(code, size, "BADSLOT WHY=MANY"); return 1; }
    for (uint8_t i = 0; i < nargs; i++) {
        int8_t f = face_index(args[i][0]);
        if (f < 0) { snprintf(code, size, "NOMOTOR FACE=%c", args[i][0]); return 1; }
        slot.face[i] = (uint8_t)f;
    }
    if (nargs == 2) {
        const char *why = 0;
        if (args[0][0] == args[1][0]) why = "SAME";
        else if (opposite(args[0][0]) != args[1][0]) why = "ADJACENT";
        else if (!PARALLEL_OPPOSITE) why = "SERIAL";
        if (why) { snprintf(code, size, "BADSLOT WHY=%s", why); return 1; }
    }
    slot.count = nargs;
    if (motion_estopped()) { snprintf(code, size, "ESTOP"); return 1; }
    if (holding) { snprintf(code, size, "STOPPED"); return 1; }
#ifdef TEST_HOOKS
    _delay_us(200);                   /* widens the window a stop byte can arrive in (test) */
#endif
    uint8_t pushed = motion_push(&slot);  /* checks the stop again, with interrupts off */
    if (pushed == PUSH_ESTOP) { snprintf(code, size, "ESTOP"); return 1; }
    if (pushed == PUSH_FULL) { snprintf(code, size, "QUEUE_FULL DEPTH=%d", QUEUE_DEPTH); return 1; }
    return 0;
}
#endif

/* returns 0 when accepted (*next: the number expected after it), else writes the refusal */
static uint8_t execute(const char *word, char **args, uint8_t nargs, char *code, uint8_t size,
                       uint16_t *next) {
#ifdef RIG_KIND_FLIPPER
    if (!strcmp(word, "ACT"))                  /* and MOVE is an unknown command (BADCMD) */
        return execute_act(args, nargs, code, size);
#else
    if (!strcmp(word, "MOVE"))
        return execute_move(args, nargs, code, size);
#endif
    if (!strcmp(word, "CLEAR")) {
        if (!motion_clear_estop()) { snprintf(code, size, "ESTOP WHY=INPUT"); return 1; }
        holding = 0;
        motion_hold(0);
        return 0;
    }
    if (!strcmp(word, "JOB")) {
        if (nargs < 2) { snprintf(code, size, "BADCMD WORD=JOB"); return 1; }
        if (motion_estopped()) { snprintf(code, size, "ESTOP"); return 1; }
        if (motion_length()) { snprintf(code, size, "BUSY"); return 1; }  /* last job turns */
        job_start(args[0], (uint16_t)atol(args[1]));
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
        if (!holding || nargs < 1 || strcmp(args[0], job_id())) {
            snprintf(code, size, "NOJOB J=%s", job_id());
            return 1;
        }
        holding = 0;
        motion_hold(0);
        return 0;
    }
    if (!strcmp(word, "RENUMBER")) {
        char *end;
        unsigned long n = nargs == 1 ? strtoul(args[0], &end, 10) : 65536UL;
        if (nargs != 1 || *end || !args[0][0] || n > 65535UL) {
            snprintf(code, size, "BADCMD WORD=RENUMBER");
            return 1;
        }
        if (motion_length()) { snprintf(code, size, "BUSY"); return 1; }
        *next = (uint16_t)n;
        return 0;
    }
#ifdef TEST_HOOKS
    if (!strcmp(word, "HANG"))                 /* the watchdog's test: the main loop stalls */
        for (;;)
            ;
#endif
    snprintf(code, size, "BADCMD WORD=%s", word);
    return 1;
}

static void answer_sequenced(uint16_t seq, uint32_t check, const char *word, char **args,
                             uint8_t nargs) {
    char body[80], tail[40], code[CODE_MAX];
    int16_t ahead = seq_after(seq, next_seq);
    if (ahead > 0) {                          /* a gap: ask for the one expected */
        protocol_resend();
        return;
    }
    if (ahead < 0) {                          /* a repeat: the stored answer, never again */
        const char *why = "STALE";
        for (uint8_t i = 0; i < REPLAY_DEPTH; i++)
            if (replay[i].used && replay[i].seq == seq) {
                if (replay[i].check == check) {
                    for (uint8_t j = 0; replay[i].text[j]; j++)
                        uart_put((uint8_t)replay[i].text[j]);
                    return;
                }
                why = "CONFLICT";             /* the same number, other content */
            }
        counters(tail, sizeof tail, next_seq);
        snprintf(body, sizeof body, "A%u ERR %s%s", seq, why, tail);
        frame_send(body, 0, 0);
        return;
    }
    uint16_t next = (uint16_t)(seq + 1);
    if (execute(word, args, nargs, code, sizeof code, &next)) {   /* refused: N stays */
        counters(tail, sizeof tail, next_seq);
        snprintf(body, sizeof body, "A%u ERR %s%s", seq, code, tail);
        frame_send(body, 0, 0);
        return;
    }
    if (next != (uint16_t)(seq + 1))          /* renumbered: old answers must not match */
        memset(replay, 0, sizeof replay);
    next_seq = next;
    counters(tail, sizeof tail, next_seq);
    snprintf(body, sizeof body, "A%u OK%s", seq, tail);
    replay_t *r = &replay[replay_next];
    if (++replay_next == REPLAY_DEPTH)
        replay_next = 0;
    r->seq = seq;
    r->check = check;
    r->used = 1;
    frame_send(body, r->text, REPLY_MAX);
}

void protocol_frame(char *body, uint32_t check) {
    char *words[WORDS_MAX];
    uint8_t n = 0;
    for (char *t = strtok(body, " "); t && n < WORDS_MAX; t = strtok(0, " "))
        words[n++] = t;
    if (n < 2)
        return;
    char kind = words[0][0];
    if (kind == 'Q') {
        answer_query(words[0] + 1, words[1]);
    } else if (kind == 'S') {
        char *args[WORDS_MAX];
        uint8_t nargs = 0;
        for (uint8_t i = 2; i < n; i++)
            if (!strchr(words[i], '='))
                args[nargs++] = words[i];
        answer_sequenced((uint16_t)atol(words[0] + 1), check, words[1], args, nargs);
    }
    /* A, R, N, E, H: the rig's own frames echoed back by the line: not for us */
}
