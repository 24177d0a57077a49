/*
 * The board SoC's memory map as the firmware sees it (rnic.hw.board.BoardSoc is the hardware; its constants and these
 * must agree — the SoC simulation tests run this firmware on that hardware).
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define RAM_BASE 0x00000000u   /* on-chip RAM: this image, its data and stack */
#define APB_BASE 0xF0000000u   /* the APB3 peripherals, behind spinal.lib's Axi4SharedToApb3Bridge */
#define UART_BASE (APB_BASE + 0x10000u)  /* spinal.lib Apb3UartCtrl */
#define BOARD_BASE (APB_BASE + 0x20000u) /* rnic.hw.board.BoardControl */
#define TCP_BASE (APB_BASE + 0x30000u)   /* rnic.hw.board.TcpBridge */
#define RNIC_BASE (APB_BASE + 0x40000u)  /* rnic.hw.top.RnicCore's registers (RnicRegisterFile) */
#define MEMORY_BASE 0x10000000u          /* board memory: the RNIC's host memory */

#define REG32(a) (*(volatile uint32_t *) (a))

/* Apb3UartCtrl (UartCtrl.driveFrom, 32-bit bus). */
#define UART_DATA REG32(UART_BASE + 0x00)    /* write: queue an octet; read: bit 16 valid, 7:0 the octet */
#define UART_STATUS REG32(UART_BASE + 0x04)  /* 23:16 free TX FIFO entries, 31:24 RX FIFO occupancy */
#define UART_DIVIDER REG32(UART_BASE + 0x08) /* bit time = samples per bit x (divider + 1) clocks */
#define UART_FRAME REG32(UART_BASE + 0x0C)   /* 2:0 data bits - 1, 9:8 parity, 16 stop bits - 1 */

/* BoardControl. */
#define BOARD_ID REG32(BOARD_BASE + 0x00)       /* ASCII "RNBD" */
#define BOARD_CLOCK_HZ REG32(BOARD_BASE + 0x04) /* the SoC clock */
#define BOARD_UART_SAMPLES REG32(BOARD_BASE + 0x08) /* UART samples per bit (UartCtrlGenerics) */
#define BOARD_BAUD REG32(BOARD_BASE + 0x0C)     /* the host link's baud rate */
#define BOARD_BUILD REG32(BOARD_BASE + 0x10)    /* build id of the hardware */
#define BOARD_CYCLE_LO REG32(BOARD_BASE + 0x14) /* free-running cycle counter; reading LO latches HI */
#define BOARD_CYCLE_HI REG32(BOARD_BASE + 0x18)
#define BOARD_LEDS REG32(BOARD_BASE + 0x1C)     /* the LEDs, one per bit */
#define BOARD_BUTTONS REG32(BOARD_BASE + 0x20)  /* the buttons, synchronised, one per bit */
#define BOARD_IRQ REG32(BOARD_BASE + 0x24)      /* bit 0: the RNIC core's interrupt line */
#define BOARD_MEMORY_BYTES REG32(BOARD_BASE + 0x28) /* board memory at MEMORY_BASE */

/* RnicCore: the register offsets come from the one declaration (RnicRegisterFile), exported at build time as
 * build/regs/rnic_regs.h. The host driver owns these registers; the firmware reads the configuration only. */
#include "rnic_regs.h"
#define RNIC_REG(off) REG32(RNIC_BASE + (off))

/* TcpBridge, per connection q. */
#define TCP_FIFO_BEATS 512u /* each direction's FIFO (TcpBridge.FIFO_BEATS) */
#define TCP_REG(q, off) REG32(TCP_BASE + 0x20u * (q) + (off))
#define TCP_RX_SEQ(q) TCP_REG(q, 0x00)   /* sequence number of the next octet pushed toward the core */
#define TCP_RX_KEEP(q) TCP_REG(q, 0x04)  /* octets of the next beat pushed (bit i: octet i), and FIN */
#define TCP_RX_KEEP_FIN 0x10u             /* RX_KEEP: the next beat ends the stream (the peer's FIN or RST) */
#define TCP_RX_DATA(q) TCP_REG(q, 0x08)  /* write: push a beat */
#define TCP_RX_FREE(q) TCP_REG(q, 0x0C)  /* beats the FIFO toward the core takes */
#define TCP_TX_COUNT(q) TCP_REG(q, 0x10) /* beats from the core waiting */
#define TCP_TX_META(q) TCP_REG(q, 0x14)  /* oldest beat: keep 3:0, last 4 */
#define TCP_TX_DATA(q) TCP_REG(q, 0x18)  /* read: the oldest beat's data, removed */

#endif
