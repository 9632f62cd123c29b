/* cubebot rig firmware: the rig's geometry, motion limits and timing -- the one place they live.
 *
 * Change this file to match your rig. robot/avr.py reads these values (it never keeps copies),
 * and tests/robot/test_firmware_layout.py checks that robot/rigs/six-motor.json agrees with
 * them. The handshake reports them (RIG and LIMITS), so the host plans with them.
 */
#ifndef CUBEBOT_CONFIG_H
#define CUBEBOT_CONFIG_H

#define FIRMWARE_VERSION "AVR-2.0"
#define PROTOCOL_VERSION 4

/* the serial line: 250000 baud is exact at 16 MHz (115200 would be 2.1 % off) */
#define BAUD 250000UL

/* which rig the build drives: make KIND=stepper (the default: a stepper per face) or
   make KIND=flipper (CUBOTino's two servos, docs/rigs.md), which defines RIG_KIND_FLIPPER */

/* the rig's geometry, reported in the handshake's RIG reply */
#define RIG_FACES "URFDLB"          /* faces with a motor, in the order of the STEP/DIR bits */
#define STEPS_PER_QUARTER 50        /* full steps of a quarter turn */
#define MICROSTEPS 16               /* the drivers' microstepping (MS1..MS3 jumpers) */
#define PARALLEL_OPPOSITE 1         /* opposite faces may turn at the same time */
#ifndef CUBE_SIZE
#define CUBE_SIZE 3                 /* the cube the grippers hold: make CUBE_SIZE=2 for a 2x2 */
#endif

/* motion, in microsteps: 16000/s is 5 rev/s and 176000/s^2 is 55 rev/s^2 at 3200 per rev */
#define MAX_SPEED_SPS 16000UL       /* cruise speed */
#define ACCEL_SPS2 176000UL         /* constant acceleration and deceleration */
#define SETTLE_MS 15U               /* rest after each turn */
#define IDLE_OFF_MS 500U            /* drivers switched off this long after the last turn */
#define MAX_STEP_RATE_HZ 20000UL    /* the step interrupt's budget: never step faster */

/* the move queue: frames waiting or turning (QUEUE= in the handshake) */
#define QUEUE_DEPTH 8
/* accepted frames whose answers are kept for repeats (docs/protocol.md: at least 2 x QUEUE) */
#define REPLAY_DEPTH (2 * QUEUE_DEPTH)

#ifdef RIG_KIND_FLIPPER
/* -- the flipper kind (docs/protocol.md section 15, docs/rigs.md): a holder servo that spins
   the cube or, with the cover closed, turns its bottom layer, and a top servo that moves the
   cover and tips the cube over. robot/rigs/flipper.json is the same rig for the host. */
#define RIG_KIND "FLIPPER"          /* KIND= in the RIG reply */
/* hobby servos: a pulse every 20 ms (50 Hz), its width the position */
#define SERVO_PERIOD_US 20000U
#define HOLDER_HOME_US 1500U        /* the holder at home (0 degrees) */
#define HOLDER_US_PER_90 500U       /* -90..+90 degrees = 1000..2000 us */
#define HOLDER_SIGN 1               /* 1: a longer pulse turns the holder clockwise seen from
                                       above (+ in the action strings: the front goes to the
                                       left); -1 for a servo that turns the other way */
#define HOLDER_MIN_DEG -90          /* the holder's range from home; further is BADACT RANGE */
#define HOLDER_MAX_DEG 90
#define TOP_OPEN_US 1500U           /* the top servo: cover open (home; the cube can turn over) */
#define TOP_CLOSED_US 1000U         /* cover closed: it holds the upper layers for a turn */
#define TOP_FLIP_US 2000U           /* the flipper's stroke: tips the cube, then back to open */
/* action times in ms: CUBOTino's defaults, as in robot/rigs/flipper.json */
#define FLIP_MS 500U                /* the top to the flip position and back to open */
#define SPIN_MS 700U                /* the holder, cover open, per 90 degrees */
#define TURN_MS 800U                /* the holder, cover closed, per 90 degrees */
#define RELEASE_MS 200U             /* after a turn; a following cover opening overlaps it */
#define COVER_MS 300U               /* the cover opening or closing */
#define HALF_TURN_PERCENT 210U      /* a 180-degree stroke costs 2.1 times a 90-degree one */
#endif

/* checks the compiler can make */
#if MAX_SPEED_SPS > MAX_STEP_RATE_HZ
#error "MAX_SPEED_SPS is above MAX_STEP_RATE_HZ: the step interrupt cannot keep up"
#endif
#if REPLAY_DEPTH < 2 * QUEUE_DEPTH
#error "the replay cache must hold at least twice the queue depth (docs/protocol.md)"
#endif
#ifdef RIG_KIND_FLIPPER
#if HOLDER_MIN_DEG > 0 || HOLDER_MAX_DEG < 0 || HOLDER_MIN_DEG % 90 || HOLDER_MAX_DEG % 90
#error "the holder's range must hold home and be whole quarter turns"
#endif
#if HOLDER_SIGN != 1 && HOLDER_SIGN != -1
#error "HOLDER_SIGN is 1 or -1"
#endif
#if RELEASE_MS > COVER_MS
#error "the release overlaps the cover's opening: it must not be longer"
#endif
#endif

#endif
