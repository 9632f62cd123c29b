/* rigsim-avr: run the rig firmware (rig.elf) in simavr at real time, behind a pseudo-terminal.
 *
 *   rigsim-avr rig.elf [--trace FILE] [--eeprom FILE]
 *
 * The first line printed is the pty's path: give it to `cubebot stream --port`. The AVR's
 * UART0 is joined to the pty (bytes from the host are fed only while the UART's receive FIFO
 * has room), simulated time is held to the wall clock, and the STEP/DIR pins are traced: one
 * JSON line per movement of one motor, {"motor": "R", "steps": -800, "start_us", "end_us",
 * "peak_sps"} (signed microsteps, + clockwise seen from the face; simulated microseconds; the
 * fastest rate over 32 pulses), written from the pins, never from the firmware's account. The EEPROM (where the firmware counts its boots) is read from and saved
 * to --eeprom, so a restarted harness is a reset rig with a new boot id. SIGTERM or SIGINT
 * saves the EEPROM and ends the harness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_eeprom.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#define EEPROM_SIZE 4096

static volatile sig_atomic_t running = 1;
static int master = -1;
static FILE *trace;
static avr_t *avr;
static int uart_room = 1;          /* the UART's receive FIFO takes another byte */
static uint8_t last_step;

static void on_signal(int sig) { (void)sig; running = 0; }

/* simavr's messages go to stderr: stdout carries only the pty's path */
static void log_to_stderr(struct avr_t *a, const int level, const char *format, va_list ap) {
    (void)a;
    if (level <= LOG_WARNING)
        vfprintf(stderr, format, ap);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t byte = (uint8_t)value;
    if (master >= 0 && write(master, &byte, 1) < 0 && errno != EAGAIN && errno != EIO)
        perror("rigsim-avr: pty write");
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value; (void)param;
    uart_room = 1;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value; (void)param;
    uart_room = 0;
}

/* one motor's movement as seen on its pins: consecutive STEP pulses, no gap over GAP_US */
#define GAP_US 5000ULL
#define PEAK_WINDOW 32
typedef struct {
    int open;
    long steps;                      /* signed: + clockwise seen from the face (DIR low) */
    unsigned long long start_us, last_us;
    unsigned long long window[PEAK_WINDOW];  /* times of the last pulses, for the peak rate */
    unsigned count;
    double peak_sps;
} movement_t;
static movement_t moves[6];
static const char FACES[] = "URFDLB";

static void flush_movement(int m) {
    movement_t *mv = &moves[m];
    if (!mv->open)
        return;
    if (trace)
        fprintf(trace, "{\"motor\": \"%c\", \"steps\": %ld, \"start_us\": %llu, "
                       "\"end_us\": %llu, \"peak_sps\": %.0f}\n",
                FACES[m], mv->steps, mv->start_us, mv->last_us, mv->peak_sps);
    mv->open = 0;
}

static void step_pins(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t rising = (uint8_t)(value & ~last_step) & 0x3F;
    last_step = (uint8_t)value;
    if (!rising)
        return;
    uint8_t dir = avr->data[0x28];                 /* PORTC: the DIR pins */
    unsigned long long us = avr->cycle / (avr->frequency / 1000000ULL);
    for (int m = 0; m < 6; m++) {
        movement_t *mv = &moves[m];
        if (mv->open && us - mv->last_us > GAP_US)
            flush_movement(m);                     /* this motor rested: its move ended */
        if (!(rising & (1 << m)))
            continue;
        if (!mv->open) {
            memset(mv, 0, sizeof *mv);
            mv->open = 1;
            mv->start_us = us;
        }
        mv->steps += ((dir >> m) & 1) ? -1 : 1;
        mv->window[mv->count % PEAK_WINDOW] = us;
        mv->count++;
        if (mv->count > PEAK_WINDOW) {
            unsigned long long oldest = mv->window[mv->count % PEAK_WINDOW];
            double sps = (double)PEAK_WINDOW * 1e6 / (double)(us - oldest + 1);
            if (sps > mv->peak_sps)
                mv->peak_sps = sps;
        }
        mv->last_us = us;
    }
}

static void flush_rested(void) {
    unsigned long long us = avr->cycle / (avr->frequency / 1000000ULL);
    for (int m = 0; m < 6; m++)
        if (moves[m].open && us - moves[m].last_us > GAP_US)
            flush_movement(m);
}

static void eeprom_io(const char *path, int save) {
    static uint8_t ee[EEPROM_SIZE];
    avr_eeprom_desc_t d = { .ee = ee, .offset = 0, .size = EEPROM_SIZE };
    if (!path)
        return;
    if (save) {
        avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &d);
        FILE *f = fopen(path, "wb");
        if (f) { fwrite(d.ee, 1, EEPROM_SIZE, f); fclose(f); }
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return;                                   /* a new board: blank EEPROM */
    if (fread(ee, 1, EEPROM_SIZE, f) == EEPROM_SIZE)
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
    fclose(f);
}

int main(int argc, char **argv) {
    const char *elf = NULL, *trace_path = NULL, *eeprom_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc) trace_path = argv[++i];
        else if (!strcmp(argv[i], "--eeprom") && i + 1 < argc) eeprom_path = argv[++i];
        else elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: rigsim-avr rig.elf [--trace FILE] [--eeprom FILE]\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw)) {
        fprintf(stderr, "rigsim-avr: cannot read %s: build it with make\n", elf);
        return 2;
    }
    avr_global_logger_set(log_to_stderr);
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) {
        fprintf(stderr, "rigsim-avr: this simavr has no atmega2560\n");
        return 2;
    }
    avr_init(avr);
    avr->frequency = 16000000;
    avr_load_firmware(avr, &fw);
    avr->frequency = 16000000;
    eeprom_io(eeprom_path, 0);

    int slave;
    char name[256];
    if (openpty(&master, &slave, name, NULL, NULL) < 0) {
        perror("rigsim-avr: openpty");
        return 2;
    }
    struct termios raw;
    tcgetattr(slave, &raw);
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    if (trace_path) {
        trace = fopen(trace_path, "w");
        if (!trace) { perror("rigsim-avr: trace"); return 2; }
        setvbuf(trace, NULL, _IOLBF, 0);
    }

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('A'), IOPORT_IRQ_PIN_ALL),
                            step_pins, NULL);
    avr_irq_t *uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("%s\n", name);
    fflush(stdout);

    double start = now_seconds();
    while (running) {
        avr_cycle_count_t until = avr->cycle + 1600;  /* 100 us of AVR time per slice */
        while (avr->cycle < until) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "rigsim-avr: the firmware stopped (state %d)\n", state);
                running = 0;
                break;
            }
        }
        if (uart_room) {
            uint8_t byte;
            ssize_t got = read(master, &byte, 1);
            if (got == 1)
                avr_raise_irq(uart_in, byte);
        }
        flush_rested();
        double ahead = (double)avr->cycle / avr->frequency - (now_seconds() - start);
        if (ahead > 0.0005)
            usleep((useconds_t)(ahead * 1e6));
    }
    eeprom_io(eeprom_path, 1);
    for (int m = 0; m < 6; m++)
        flush_movement(m);
    if (trace)
        fclose(trace);
    return 0;
}
