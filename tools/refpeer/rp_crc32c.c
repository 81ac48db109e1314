// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78) in the kernel's
 * convention: the caller seeds and inverts (mro_wire.c does both).  A
 * slice-by-4 table implementation; not cryptography.
 */
#include <pthread.h>
#include <linux/crc32c.h>

static u32 crc_tab[4][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78U : c >> 1;
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 4; j++)
			crc_tab[j][i] = (crc_tab[j - 1][i] >> 8) ^
					crc_tab[0][crc_tab[j - 1][i] & 0xff];
}

u32 crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	pthread_once(&crc_once, crc_init);
	while (len >= 4) {
		crc ^= (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
		       (u32)p[3] << 24;
		crc = crc_tab[3][crc & 0xff] ^ crc_tab[2][(crc >> 8) & 0xff] ^
		      crc_tab[1][(crc >> 16) & 0xff] ^ crc_tab[0][crc >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}
