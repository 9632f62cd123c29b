/* The rig's memory of who it is and what it was asked to do: the boot id (a counter kept in
 * EEPROM, new at every reset), why it last reset, and the job (id and total moves). */
#ifndef CUBEBOT_JOB_H
#define CUBEBOT_JOB_H

#include <stdint.h>

/* at start-up, with the reset flags read from MCUSR before anything cleared them */
void job_boot(uint8_t reset_flags);
/* four hex digits, new at every reset */
const char *job_boot_id(void);
/* PWR, EXT, BOR, WDT or NONE (docs/protocol.md, "Handshake") */
const char *job_reset_cause(void);
/* the job: its id ("-" for none) and total moves; moves done are motion_job_done() */
const char *job_id(void);
uint16_t job_total(void);
void job_start(const char *id, uint16_t total);

#endif
