/* The protocol's state (docs/protocol.md): queries, sequenced frames executed exactly once with
 * a replay cache, jobs, stop and resume, and the frames the rig sends unasked. */
#ifndef CUBEBOT_PROTOCOL_H
#define CUBEBOT_PROTOCOL_H

#include <stdint.h>

/* a checked frame's body (between '$' and '*', NUL-ended, may be cut up) and its CRC */
void protocol_frame(char *body, uint32_t check);
/* "$N RESEND ...": a damaged frame, or a gap */
void protocol_resend(void);
/* "$H BOOT ...": the boot banner */
void protocol_banner(void);
/* "$E ESTOP ...": the emergency stop's notice */
void protocol_estop_notice(void);

#endif
