/* The boot id, the reset cause and the job.
 *
 * The boot id is a counter stepped through a full-period sequence in EEPROM at every reset, so
 * the host can tell a rig that reset (and lost its queue and counters) from one that did not.
 */
#include <avr/eeprom.h>
#include <avr/io.h>
#include <stdio.h>
#include <string.h>

#include "job.h"

static char boot_id[5];
static const char *cause = "NONE";
static char id[9] = "-";
static uint16_t total;

void job_boot(uint8_t reset_flags) {
    uint16_t boots = eeprom_read_word((uint16_t *)0);
    boots = (uint16_t)(boots * 40503U + 1U);  /* a new id every reset, stored for the next */
    eeprom_update_word((uint16_t *)0, boots);
    snprintf(boot_id, sizeof boot_id, "%04X", boots);
    /* power-on sets PORF and leaves the others undefined; the Mega's stk500v2 bootloader
       clears them all, hence NONE (an external reset, or power-on, through the bootloader) */
    if (reset_flags & (1 << PORF)) cause = "PWR";
    else if (reset_flags & (1 << WDRF)) cause = "WDT";
    else if (reset_flags & (1 << BORF)) cause = "BOR";
    else if (reset_flags & ((1 << EXTRF) | (1 << JTRF))) cause = "EXT";
    else cause = "NONE";
}

const char *job_boot_id(void) { return boot_id; }

const char *job_reset_cause(void) { return cause; }

const char *job_id(void) { return id; }

uint16_t job_total(void) { return total; }

void job_start(const char *new_id, uint16_t new_total) {
    strncpy(id, new_id, sizeof id - 1);
    id[sizeof id - 1] = 0;
    total = new_total;
}
