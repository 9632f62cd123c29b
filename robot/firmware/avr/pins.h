/* cubebot rig firmware: which pins do what on an Arduino Mega 2560 (ATmega2560).
 *
 *   face      U   R   F   D   L   B
 *   STEP pin  22  23  24  25  26  27     (PORTA bits 0..5)
 *   DIR pin   37  36  35  34  33  32     (PORTC bits 0..5)
 *   ENABLE    49 for all drivers, low = on (PORTL bit 0); fit a 10k pull-up to 5 V so the
 *             drivers stay off while the pin floats (reset, bootloader)
 *   STOP      2, a button to GND, active low, internal pull-up (PORTE bit 4, INT4)
 *   LED       13 (PORTB bit 7)
 *
 * The flipper build (make KIND=flipper) has no steppers; its two hobby servos take Timer5's
 * hardware PWM, a timer the stepper code never touches (Timer1 keeps the 1 ms tick):
 *
 *   HOLDER servo signal  46 (OC5A, PORTL bit 3)
 *   TOP servo signal     45 (OC5B, PORTL bit 4)   the cover and the flipper
 *
 * Both are driven low (no pulses: the servos limp) until the first action. Power the servos
 * from their own 5-6 V supply and join its ground to the Mega's.
 *
 * A RAMPS-style shield routes its sockets to other pins: wire each driver's STEP and DIR to
 * the pins above (jumper wires from the AUX headers), or change the port macros here.
 */
#ifndef CUBEBOT_PINS_H
#define CUBEBOT_PINS_H

#include <avr/io.h>

#define STEP_PORT PORTA
#define STEP_DDR DDRA
#define STEP_MASK 0x3F
#define DIR_PORT PORTC
#define DIR_DDR DDRC
#define ENABLE_PORT PORTL
#define ENABLE_DDR DDRL
#define ENABLE_BIT 0
#define STOP_PORT PORTE
#define STOP_DDR DDRE
#define STOP_PIN PINE
#define STOP_BIT 4
#define LED_PORT PORTB
#define LED_DDR DDRB
#define LED_BIT 7
#define SERVO_PORT PORTL
#define SERVO_DDR DDRL
#define HOLDER_BIT 3                /* OC5A */
#define TOP_BIT 4                   /* OC5B */

#endif
