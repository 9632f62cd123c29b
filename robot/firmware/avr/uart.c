/* The serial line (USART0, the Mega's USB serial): 250000 baud 8N1, exact at 16 MHz.
 *
 * The receive interrupt only moves bytes into a ring buffer -- except the emergency-stop byte,
 * which stops the motors there and then, in the middle of a frame or while the main loop is
 * busy (GRBL takes its realtime commands the same way). A full buffer drops the byte; the
 * frame's CRC tells the host, which sends it again.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"
#include "motion.h"
#include "uart.h"

#define UBRR_VALUE ((F_CPU + 4UL * BAUD) / (8UL * BAUD) - 1UL)  /* U2X: 8 samples a bit */
#if F_CPU / (8UL * (UBRR_VALUE + 1UL)) != BAUD
#error "BAUD is not exact at this F_CPU: choose a baud rate the clock divides (250000 at 16 MHz)"
#endif

static volatile uint8_t rx_buf[256];
static volatile uint8_t rx_head, rx_tail;

ISR(USART0_RX_vect) {
    uint8_t c = UDR0;
    if (c == ESTOP_BYTE) {                  /* not a frame byte: stop now, wherever it came */
        motion_estop();
        return;
    }
    uint8_t next = (uint8_t)(rx_head + 1);
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

void uart_init(void) {
    UCSR0A = (1 << U2X0);
    UBRR0 = UBRR_VALUE;
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);  /* 8N1 */
}

void uart_put(uint8_t c) {
    while (!(UCSR0A & (1 << UDRE0)))
        ;
    UDR0 = c;
}

int16_t uart_get(void) {
    int16_t c = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (rx_tail != rx_head) {
            c = rx_buf[rx_tail];
            rx_tail = (uint8_t)(rx_tail + 1);
        }
    }
    return c;
}
