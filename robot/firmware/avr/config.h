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

/* checks the compiler can make */
#if MAX_SPEED_SPS > MAX_STEP_RATE_HZ
#error "MAX_SPEED_SPS is above MAX_STEP_RATE_HZ: the step interrupt cannot keep up"
#endif
#if REPLAY_DEPTH < 2 * QUEUE_DEPTH
#error "the replay cache must hold at least twice the queue depth (docs/protocol.md)"
#endif

#endif
