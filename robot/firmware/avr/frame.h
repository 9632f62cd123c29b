/* Frames: "$BODY*CRC\n" cut from the byte stream, the CRC-32 checked and written. */
#ifndef CUBEBOT_FRAME_H
#define CUBEBOT_FRAME_H

#include <stdint.h>

#define FRAME_MAX 200               /* bytes between '$' and '\n', at most */
#define CRC_DIGITS 8

typedef struct {
    char text[FRAME_MAX + 1];
    uint8_t len;
    uint8_t inside;
} framer_t;

enum { FRAME_NONE, FRAME_READY, FRAME_BAD };

/* feed one byte: FRAME_READY when a frame ended (its text in f->text, f->len bytes),
   FRAME_BAD when one was cut short, too long or held a stray byte */
uint8_t framer_feed(framer_t *f, uint8_t c);
/* check a frame's CRC tail; returns the body's length (the '*' replaced by 0) and its CRC in
   *check, or -1 when the tail is malformed or does not match */
int16_t frame_check(char *text, uint8_t len, uint32_t *check);
uint32_t crc32(const char *body, uint8_t len);
/* send "$BODY*CRC\n"; with copy, also write the whole frame there (copy_size bytes at most) */
void frame_send(const char *body, char *copy, uint8_t copy_size);

#endif
