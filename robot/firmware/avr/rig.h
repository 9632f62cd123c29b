/* cubebot rig firmware for the ATmega2560: the board's wiring and the rig's geometry.
 *
 * Change this file to match your board. The defaults drive six step/dir drivers (A4988,
 * DRV8825, ...) from the Arduino Mega 2560's digital pins:
 *
 *   face      U   R   F   D   L   B
 *   STEP pin  22  23  24  25  26  27     (PORTA bits 0..5)
 *   DIR pin   37  36  35  34  33  32     (PORTC bits 0..5)
 *   ENABLE    49 for all drivers, low = on (PORTL bit 0)
 *
 * A RAMPS-style shield routes its sockets to other pins: wire each driver's STEP and DIR to
 * the pins above (jumper wires from the AUX headers), or change the port macros here.
 */
#ifndef CUBEBOT_RIG_H
#define CUBEBOT_RIG_H

#define FIRMWARE_VERSION "AVR-1.1"
#define PROTOCOL_VERSION 3

/* the rig's geometry, reported in the handshake's RIG reply */
#define RIG_FACES "URFDLB"          /* faces with a motor, in the order of the bits below */
#define STEPS_PER_QUARTER 50        /* full steps of a quarter turn */
#define MICROSTEPS 16               /* the drivers' microstepping (MS1..MS3 jumpers) */
#define PARALLEL_OPPOSITE 1         /* opposite faces may turn at the same time */
#ifndef CUBE_SIZE
#define CUBE_SIZE 3                 /* the cube the grippers hold: make CUBE_SIZE=2 for a 2x2 */
#endif

/* motion: microsteps per second at cruise, the ramp from rest, the pause after a turn */
#define STEP_RATE_HZ 8000UL
#define START_RATE_HZ 2000UL
#define RAMP_STEPS 200U
#define SETTLE_MS 15U

/* the move queue: frames waiting or turning (QUEUE= in the handshake) */
#define QUEUE_DEPTH 8

/* pins */
#define STEP_PORT PORTA
#define STEP_DDR DDRA
#define DIR_PORT PORTC
#define DIR_DDR DDRC
#define ENABLE_PORT PORTL
#define ENABLE_DDR DDRL
#define ENABLE_BIT 0

#endif
