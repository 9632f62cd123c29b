/* Frames (docs/protocol.md, "Frames"): printable ASCII between '$' and '\n', ending in '*' and
 * the CRC-32 of zlib and Ethernet of the bytes between '$' and '*' as eight upper-case hex
 * digits. A '$' always starts afresh, so the parser resynchronises after line noise.
 */
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "uart.h"

/* the reflected polynomial 0xEDB88320, a nibble at a time: 64 bytes of table, not 1 KB */
static const uint32_t crc_nibble[16] = {
    0x00000000UL, 0x1DB71064UL, 0x3B6E20C8UL, 0x26D930ACUL,
    0x76DC4190UL, 0x6B6B51F4UL, 0x4DB26158UL, 0x5005713CUL,
    0xEDB88320UL, 0xF00F9344UL, 0xD6D6A3E8UL, 0xCB61B38CUL,
    0x9B64C2B0UL, 0x86D3D2D4UL, 0xA00AE278UL, 0xBDBDF21CUL,
};

uint32_t crc32(const char *body, uint8_t len) {
    uint32_t c = 0xFFFFFFFFUL;
    for (uint8_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)body[i];
        c = (c >> 4) ^ crc_nibble[(c ^ b) & 0x0F];
        c = (c >> 4) ^ crc_nibble[(c ^ (b >> 4)) & 0x0F];
    }
    return ~c;
}

uint8_t framer_feed(framer_t *f, uint8_t c) {
    if (c == '$') {                           /* a '$' always starts afresh */
        uint8_t cut = f->inside;
        f->inside = 1;
        f->len = 0;
        return cut ? FRAME_BAD : FRAME_NONE;  /* the frame before it was cut short */
    }
    if (!f->inside)
        return FRAME_NONE;
    if (c == '\n') {
        f->inside = 0;
        f->text[f->len] = 0;
        return FRAME_READY;
    }
    if (f->len >= FRAME_MAX || c < 0x20 || c > 0x7E) {
        f->inside = 0;                        /* too long or a stray byte: damaged */
        return FRAME_BAD;
    }
    f->text[f->len++] = (char)c;
    return FRAME_NONE;
}

static int8_t hex_digit(char c) {
    if (c >= '0' && c <= '9') return (int8_t)(c - '0');
    if (c >= 'A' && c <= 'F') return (int8_t)(c - 'A' + 10);
    return -1;                                /* lower case too: the CRC is sent upper-case */
}

int16_t frame_check(char *text, uint8_t len, uint32_t *check) {
    if (len < CRC_DIGITS + 2 || text[len - CRC_DIGITS - 1] != '*')
        return -1;
    uint32_t sent = 0;
    for (uint8_t i = (uint8_t)(len - CRC_DIGITS); i < len; i++) {
        int8_t d = hex_digit(text[i]);
        if (d < 0)
            return -1;
        sent = (sent << 4) | (uint8_t)d;
    }
    uint8_t body_len = (uint8_t)(len - CRC_DIGITS - 1);
    if (sent != crc32(text, body_len))
        return -1;
    text[body_len] = 0;
    *check = sent;
    return body_len;
}

void frame_send(const char *body, char *copy, uint8_t copy_size) {
    char tail[CRC_DIGITS + 3];
    uint8_t len = (uint8_t)strlen(body);
    snprintf(tail, sizeof tail, "*%08lX\n", (unsigned long)crc32(body, len));
    uart_put('$');
    for (uint8_t i = 0; i < len; i++)
        uart_put((uint8_t)body[i]);
    for (uint8_t i = 0; tail[i]; i++)
        uart_put((uint8_t)tail[i]);
    if (copy)
        snprintf(copy, copy_size, "$%s%s", body, tail);
}
