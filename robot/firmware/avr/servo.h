/* The servos' pulses (flipper build): Timer5's hardware PWM at 50 Hz, OC5A the holder, OC5B
 * the top. No pulses until powered: a servo without pulses is limp. */
#ifndef CUBEBOT_SERVO_H
#define CUBEBOT_SERVO_H

#include <stdint.h>

enum { SERVO_HOLDER, SERVO_TOP };

/* pins driven low (no pulses), the timer running with its outputs disconnected */
void servo_init(void);
/* the pulse width of a servo from the next period on, in microseconds (interrupts off) */
void servo_set(uint8_t servo, uint16_t us);
/* pulses start, or stop, between two periods (never a pulse cut short; interrupts off) */
void servo_power(uint8_t on);
/* the pulses stop at once, pins low (the emergency stop; a pulse may be cut short) */
void servo_off_now(void);
/* pulses are on, or asked for */
uint8_t servo_powered(void);

#endif
