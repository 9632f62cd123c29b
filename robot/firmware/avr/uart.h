/* The serial line: a receive ring buffer filled by the interrupt, which acts on the
 * emergency-stop byte the moment it arrives; sending waits for the transmitter. */
#ifndef CUBEBOT_UART_H
#define CUBEBOT_UART_H

#include <stdint.h>

/* the emergency stop: one byte outside every frame (docs/protocol.md, "Emergency stop") */
#define ESTOP_BYTE 0x9B

void uart_init(void);
void uart_put(uint8_t c);
/* the next byte received, or -1 */
int16_t uart_get(void);

#endif
