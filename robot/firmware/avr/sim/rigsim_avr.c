/* rigsim-avr: run the rig firmware (rig.elf) in simavr at real time, behind a pseudo-terminal,
 * as a stock Arduino Mega would be seen from its USB port.
 *
 *   rigsim-avr rig.elf [--trace FILE] [--eeprom FILE] [--reset-on-open] [--boot-delay MS]
 *
 * The first line printed is the pty's path: give it to `cubebot stream --port`. The AVR's
 * UART0 is joined to the pty (bytes from the host are fed while the UART's receive FIFO has
 * room), and simulated time is held to the wall clock.
 *
 * The port's DTR line is modelled: down until a host opens the pty, up while one has it open,
 * and down again when the last host closes it with HUPCL set (the pty is created with HUPCL
 * set, as a USB serial device is). With --reset-on-open the chip resets whenever DTR rises, as
 * the Mega's auto-reset capacitor makes it: the pins float, and for --boot-delay ms (the
 * bootloader; default 500) the chip runs nothing and bytes from the host are lost. Bytes the
 * chip sends while no host has the port open are lost too.
 *
 * The trace (--trace) is written from the pins, never from the firmware's account, one JSON
 * line each:
 *   {"motor": "R", "steps": -800, "start_us", "end_us", "peak_sps", "first_sps", "last_sps",
 *    "accel_sps2", "decel_sps2"}      one movement of one motor: signed microsteps (+ is
 *                                     clockwise seen from the face), board microseconds, the
 *                                     fastest rate over 32 pulses, the rates of its first block
 *                                     and its last 32 pulses, its largest acceleration and
 *                                     deceleration (between the rates of successive blocks of
 *                                     at least 5 ms and 8 pulses: shorter blocks would measure
 *                                     the interrupts' jitter, not the motion)
 *   {"pin": "EN", "on": false, "driven": true, "t_us"}   the drivers' ENABLE changed (low = on;
 *                                     not driven: floating, off through the pull-up)
 *   {"event": "reset", "cause": "EXT", "t_us"}            the chip was reset
 *   {"event": "race_in", "t_us"} / {"event": "estop_in", "t_us"}    a race's frame, its stop
 *   {"event": "button", "pressed": true, "t_us"}                       the stop button
 *   {"servo": "HOLDER", "us": 1500, "period_us": 20000, "t_us"}
 *                                     a servo's pulse width changed (by 2 us or more; the first
 *                                     pulse of a train too, with period_us 0): its width in
 *                                     microseconds, the time from the pulse before, and when it
 *                                     rose. HOLDER is D46 (PL3, OC5A), TOP is D45 (PL4, OC5B)
 *   {"servo": "TOP", "us": 0, "t_us", "pulses", "min_period_us", "max_period_us"}
 *                                     the pulses stopped (none for 30 ms): when the last one
 *                                     fell, how many the train had and its shortest and longest
 *                                     period
 *
 * Commands on stdin, one a line: "press" and "release" (the stop button on D2), "reset" (the
 * reset pin), "race DELAY_US HEX" (feed the bytes HEX to the UART, then the emergency-stop
 * byte DELAY_US later: a stop arriving while a frame is decoded). The EEPROM (where the
 * firmware counts its boots) is read from and saved to --eeprom. SIGTERM, SIGINT or the end of
 * stdin saves the EEPROM and ends the harness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#define MCUSR_ADDR 0x54                 /* MCUSR: I/O 0x34 */
#define PORF_BIT 0
#define EXTRF_BIT 1
#define DDRL_ADDR 0x10A
#define PORTL_ADDR 0x10B
#define ENABLE_BIT 0
#define PORTC_ADDR 0x28                 /* the DIR pins */
#define ESTOP_BYTE 0x9B

static volatile sig_atomic_t running = 1;
static int master = -1;
static FILE *trace;
static avr_t *avr;
static int uart_room = 1;               /* the UART's receive FIFO takes another byte */
static uint8_t last_step;
static unsigned long long held_us;      /* board time spent held in reset */
static int host_open, dtr, reset_on_open;
static unsigned boot_delay_ms = 500;
static avr_irq_t *uart_in, *stop_pin;
static uint8_t inject[256];
static unsigned inject_len, inject_pos;
static long race_delay_us = -1;
static avr_cycle_count_t race_at;

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

static unsigned long long board_us(void) {
    return avr->cycle / (avr->frequency / 1000000ULL) + held_us;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t byte = (uint8_t)value;
    if (!host_open)
        return;                          /* nobody has the port open: the byte is lost */
    if (write(master, &byte, 1) < 0 && errno != EAGAIN && errno != EIO)
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

/* -- one motor's movement as seen on its pins: consecutive STEP pulses, no gap over GAP_US -- */
#define GAP_US 8000ULL
#define BLOCK 32                        /* pulses over which peak and last rates are taken */
#define RATE_BLOCK_US 5000ULL           /* the shortest block the acceleration is taken from */
#define RATE_BLOCK_PULSES 8
typedef struct {
    int open;
    long steps;                         /* signed: + clockwise seen from the face (DIR low) */
    unsigned long long start_us, last_us;
    unsigned long long window[BLOCK];   /* times of the last pulses */
    unsigned count;
    double peak_sps, first_sps, accel, decel;
    double block_rate, block_mid;       /* the last whole block's rate and middle time */
    unsigned long long block_start;     /* the first pulse of the block being measured */
    unsigned block_pulses;              /* intervals in it so far */
    int blocks;
} movement_t;
static movement_t moves[6];
static const char FACES[] = "URFDLB";

static double rate_of_last_block(const movement_t *mv, unsigned long long us) {
    unsigned long long oldest = mv->window[mv->count % BLOCK];
    return (double)BLOCK * 1e6 / (double)(us - oldest + 1);
}

static void flush_movement(int m) {
    movement_t *mv = &moves[m];
    if (!mv->open)
        return;
    double last = mv->count > BLOCK ? rate_of_last_block(mv, mv->last_us) : 0.0;
    if (trace)
        fprintf(trace, "{\"motor\": \"%c\", \"steps\": %ld, \"start_us\": %llu, "
                       "\"end_us\": %llu, \"peak_sps\": %.0f, \"first_sps\": %.0f, "
                       "\"last_sps\": %.0f, \"accel_sps2\": %.0f, \"decel_sps2\": %.0f}\n",
                FACES[m], mv->steps, mv->start_us, mv->last_us, mv->peak_sps, mv->first_sps,
                last, mv->accel, mv->decel);
    mv->open = 0;
}

static void step_pins(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t rising = (uint8_t)(value & ~last_step) & 0x3F;
    last_step = (uint8_t)value;
    if (!rising)
        return;
    uint8_t dir = avr->data[PORTC_ADDR];
    unsigned long long us = board_us();
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
        if (mv->count >= BLOCK) {
            double sps = rate_of_last_block(mv, us);
            if (sps > mv->peak_sps)
                mv->peak_sps = sps;
        }
        if (mv->count == 0) {
            mv->block_start = us;
        } else if (++mv->block_pulses >= RATE_BLOCK_PULSES
                   && us - mv->block_start >= RATE_BLOCK_US) {   /* a whole block */
            double rate = (double)mv->block_pulses * 1e6 / (double)(us - mv->block_start);
            double mid = ((double)mv->block_start + (double)us) / 2.0;
            mv->block_start = us;
            mv->block_pulses = 0;
            if (mv->blocks == 0) {
                mv->first_sps = rate;
            } else {
                double change = (rate - mv->block_rate) / ((mid - mv->block_mid) / 1e6);
                if (change > mv->accel) mv->accel = change;
                if (-change > mv->decel) mv->decel = -change;
            }
            mv->block_rate = rate;
            mv->block_mid = mid;
            mv->blocks++;
        }
        mv->window[mv->count % BLOCK] = us;
        mv->count++;
        mv->last_us = us;
    }
}

static void flush_rested(void) {
    unsigned long long us = board_us();
    for (int m = 0; m < 6; m++)
        if (moves[m].open && us - moves[m].last_us > GAP_US)
            flush_movement(m);
}

/* -- the servos' pulses, measured from their pins (the flipper build; Timer5's OC5A/OC5B) -- */
#define SERVO_GAP_US 30000ULL           /* no pulse for this long: the train stopped */
#define SERVO_CHANGE_US 2               /* a width this far from the last reported is new */
typedef struct {
    const char *name;
    int high, running;
    avr_cycle_count_t rise, fall, last_rise;
    unsigned long long rise_us, fall_us;
    long reported_us;
    unsigned long pulses;
    unsigned long long min_period, max_period;
} servo_t;
static servo_t servos[2] = { { .name = "HOLDER" }, { .name = "TOP" } };

static void servo_edge(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    servo_t *sv = &servos[(long)param];
    int high = value & 1;
    if (high == sv->high)
        return;
    sv->high = high;
    unsigned per_us = (unsigned)(avr->frequency / 1000000ULL);
    if (high) {
        sv->rise = avr->cycle;
        sv->rise_us = board_us();
        return;
    }
    if (!sv->rise)
        return;                          /* a fall without its rise: not a whole pulse */
    sv->fall = avr->cycle;
    sv->fall_us = board_us();
    long width = (long)((sv->fall - sv->rise + per_us / 2) / per_us);
    unsigned long long period = 0;
    if (sv->running) {
        period = (sv->rise - sv->last_rise + per_us / 2) / per_us;
        if (!sv->min_period || period < sv->min_period) sv->min_period = period;
        if (period > sv->max_period) sv->max_period = period;
    } else {
        sv->running = 1;
        sv->pulses = 0;
        sv->min_period = sv->max_period = 0;
        sv->reported_us = 0;
    }
    sv->last_rise = sv->rise;
    sv->pulses++;
    long change = width - sv->reported_us;
    if (change >= SERVO_CHANGE_US || change <= -SERVO_CHANGE_US) {
        sv->reported_us = width;
        if (trace)
            fprintf(trace, "{\"servo\": \"%s\", \"us\": %ld, \"period_us\": %llu, "
                           "\"t_us\": %llu}\n", sv->name, width, period, sv->rise_us);
    }
}

/* report the trains that stopped (all still running, with at_exit) */
static void servos_rested(int at_exit) {
    unsigned long long us = board_us();
    for (int i = 0; i < 2; i++) {
        servo_t *sv = &servos[i];
        if (!sv->running || (!at_exit && (sv->high || us - sv->fall_us < SERVO_GAP_US)))
            continue;
        sv->running = 0;
        if (trace)
            fprintf(trace, "{\"servo\": \"%s\", \"us\": 0, \"t_us\": %llu, \"pulses\": %lu, "
                           "\"min_period_us\": %llu, \"max_period_us\": %llu}\n", sv->name,
                    sv->fall_us, sv->pulses, sv->min_period, sv->max_period);
    }
}

/* -- the drivers' ENABLE, sampled from the registers -------------------------------------- */

static int enable_state = -1;           /* bit 0: on, bit 1: driven */

static void watch_enable(void) {
    int driven = (avr->data[DDRL_ADDR] >> ENABLE_BIT) & 1;
    int on = driven && !((avr->data[PORTL_ADDR] >> ENABLE_BIT) & 1);  /* floating: pull-up */
    int state = on | (driven << 1);
    if (state == enable_state)
        return;
    enable_state = state;
    if (trace)
        fprintf(trace, "{\"pin\": \"EN\", \"on\": %s, \"driven\": %s, \"t_us\": %llu}\n",
                on ? "true" : "false", driven ? "true" : "false", board_us());
}

static void event(const char *json_fields) {
    if (trace)
        fprintf(trace, "{%s, \"t_us\": %llu}\n", json_fields, board_us());
}

/* -- reset: the pins float, the bootloader eats the line ----------------------------------- */

static void reset_chip(const char *cause, int flag_bit) {
    for (int m = 0; m < 6; m++)
        flush_movement(m);
    avr_reset(avr);
    for (int i = 0; i < 2; i++) {        /* the pins float: a pulse in flight is lost */
        servos[i].high = 0;
        servos[i].rise = 0;
    }
    avr->data[MCUSR_ADDR] = (uint8_t)(1 << flag_bit);
    avr_raise_irq(stop_pin, 0);          /* the reset cleared the pin's register: the */
    avr_raise_irq(stop_pin, 1);          /* button's pull-up reads released again */
    uart_room = 1;
    inject_len = inject_pos = 0;
    race_delay_us = -1;
    char fields[64];
    snprintf(fields, sizeof fields, "\"event\": \"reset\", \"cause\": \"%s\"", cause);
    event(fields);
    watch_enable();                      /* the pins are inputs now: ENABLE floats */
    /* the bootloader: nothing runs, bytes from the host are lost */
    double until = now_seconds() + boot_delay_ms / 1000.0;
    while (running && now_seconds() < until) {
        uint8_t junk[64];
        if (master >= 0 && host_open)
            while (read(master, junk, sizeof junk) > 0)
                ;
        usleep(1000);
    }
    held_us += (unsigned long long)boot_delay_ms * 1000ULL;
}

/* the host's opens and closes of the pty, and the DTR line they move */
static void watch_host(void) {
    struct pollfd p = { .fd = master, .events = POLLIN };
    if (poll(&p, 1, 0) < 0)
        return;
    int open_now = !(p.revents & POLLHUP);
    if (open_now && !host_open) {
        host_open = 1;
        if (!dtr && reset_on_open) {
            dtr = 1;
            reset_chip("EXT", EXTRF_BIT);
        }
        dtr = 1;
    } else if (!open_now && host_open) {
        struct termios t;
        host_open = 0;
        if (tcgetattr(master, &t) == 0 && (t.c_cflag & HUPCL))
            dtr = 0;                     /* the last close dropped DTR */
    }
}

/* -- commands on stdin ---------------------------------------------------------------------- */

static void command(char *line) {
    if (!strncmp(line, "press", 5)) {
        avr_raise_irq(stop_pin, 0);
        event("\"event\": \"button\", \"pressed\": true");
    } else if (!strncmp(line, "release", 7)) {
        avr_raise_irq(stop_pin, 1);
        event("\"event\": \"button\", \"pressed\": false");
    } else if (!strncmp(line, "reset", 5)) {
        reset_chip("EXT", EXTRF_BIT);
    } else if (!strncmp(line, "race ", 5)) {
        char *hex;
        race_delay_us = strtol(line + 5, &hex, 10);
        while (*hex == ' ') hex++;
        inject_len = inject_pos = 0;
        for (; hex[0] && hex[1] && inject_len < sizeof inject; hex += 2) {
            unsigned byte;
            if (sscanf(hex, "%2x", &byte) != 1) break;
            inject[inject_len++] = (uint8_t)byte;
        }
        race_at = 0;
    }
}

static void read_commands(void) {
    static char line[1024];
    static size_t len;
    char c;
    ssize_t got;
    while ((got = read(STDIN_FILENO, &c, 1)) == 1) {
        if (c == '\n') {
            line[len] = 0;
            command(line);
            len = 0;
        } else if (len + 1 < sizeof line) {
            line[len++] = c;
        }
    }
    if (got == 0)
        running = 0;                     /* stdin closed: the parent is gone */
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

static int open_pty(char *name) {
    int slave;
    if (openpty(&master, &slave, name, NULL, NULL) < 0) {
        perror("rigsim-avr: openpty");
        return -1;
    }
    struct termios raw;
    tcgetattr(slave, &raw);
    cfmakeraw(&raw);
    raw.c_cflag |= HUPCL;                /* as a USB serial device: the last close drops DTR */
    tcsetattr(slave, TCSANOW, &raw);
    close(slave);                        /* only the host holds it: opens and closes show */
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    return 0;
}

int main(int argc, char **argv) {
    const char *elf = NULL, *trace_path = NULL, *eeprom_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc) trace_path = argv[++i];
        else if (!strcmp(argv[i], "--eeprom") && i + 1 < argc) eeprom_path = argv[++i];
        else if (!strcmp(argv[i], "--reset-on-open")) reset_on_open = 1;
        else if (!strcmp(argv[i], "--boot-delay") && i + 1 < argc)
            boot_delay_ms = (unsigned)atoi(argv[++i]);
        else elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: rigsim-avr rig.elf [--trace FILE] [--eeprom FILE] "
                        "[--reset-on-open] [--boot-delay MS]\n");
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

    char name[256];
    if (open_pty(name) < 0)
        return 2;
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
    for (long i = 0; i < 2; i++)                  /* the servos: D46 (PL3), D45 (PL4) */
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('L'), 3 + (int)i),
                                servo_edge, (void *)i);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    stop_pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('E'), 4);
    avr_raise_irq(stop_pin, 1);                   /* the button's pull-up: released */
    avr->data[MCUSR_ADDR] = (uint8_t)(1 << PORF_BIT);  /* powered on */
    event("\"event\": \"reset\", \"cause\": \"PWR\"");
    watch_enable();

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    printf("%s\n", name);
    fflush(stdout);

    double start = now_seconds();
    unsigned slice = 0;
    while (running) {
        avr_cycle_count_t until = avr->cycle + 1600;  /* 100 us of AVR time per slice */
        if (race_at && race_at < until)
            until = race_at > avr->cycle ? race_at : avr->cycle + 1;
        while (avr->cycle < until) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "rigsim-avr: the firmware stopped (state %d)\n", state);
                running = 0;
                break;
            }
        }
        if (race_at && avr->cycle >= race_at) {      /* the race's stop byte is due */
            race_at = 0;
            race_delay_us = -1;
            event("\"event\": \"estop_in\"");
            avr_raise_irq(uart_in, ESTOP_BYTE);
        }
        if (uart_room && inject_pos < inject_len) {
            if (inject_pos == 0)
                event("\"event\": \"race_in\"");
            avr_raise_irq(uart_in, inject[inject_pos++]);
            if (inject_pos == inject_len && race_delay_us >= 0)
                race_at = avr->cycle + (avr_cycle_count_t)race_delay_us * 16;
        } else if (uart_room && host_open) {
            uint8_t byte;
            if (read(master, &byte, 1) == 1)
                avr_raise_irq(uart_in, byte);
        }
        watch_enable();
        if (++slice % 10 == 0) {                      /* every millisecond */
            flush_rested();
            servos_rested(0);
            watch_host();
            read_commands();
        }
        /* board time (held resets included) kept to the wall clock */
        double ahead = (double)board_us() / 1e6 - (now_seconds() - start);
        if (ahead > 0.0005)
            usleep((useconds_t)(ahead * 1e6));
    }
    eeprom_io(eeprom_path, 1);
    for (int m = 0; m < 6; m++)
        flush_movement(m);
    servos_rested(1);
    if (trace)
        fclose(trace);
    return 0;
}
