## Digilent Arty A7-100T (xc7a100tcsg324-1): pins of rnic.hw.board.BoardTop (module BoardTop_arty_a7_100t, the board
## SoC behind the MMCM that makes 48 MHz of the 100 MHz oscillator). Taken from Digilent/digilent-xdc
## Arty-A7-100-Master.xdc: CLK100MHZ E3; uart_rxd_out D10 (FPGA transmits: uart_txd), uart_txd_in A9 (FPGA receives:
## uart_rxd); led[0..3] H5 J5 T9 T10 (LD4..LD7, light when high); btn[0..3] D9 C9 B9 B8 (BTN0..BTN3, high while
## pressed). Vivado derives the 48 MHz SoC clock's constraint from the MMCM's settings and the clock below.
set_property -dict { PACKAGE_PIN E3    IOSTANDARD LVCMOS33 } [get_ports { clk }];
create_clock -add -name sys_clk_pin -period 10.00 -waveform {0 5} [get_ports { clk }];
set_property -dict { PACKAGE_PIN D10   IOSTANDARD LVCMOS33 } [get_ports { uart_txd }];
set_property -dict { PACKAGE_PIN A9    IOSTANDARD LVCMOS33 } [get_ports { uart_rxd }];
set_property -dict { PACKAGE_PIN H5    IOSTANDARD LVCMOS33 } [get_ports { leds[0] }];
set_property -dict { PACKAGE_PIN J5    IOSTANDARD LVCMOS33 } [get_ports { leds[1] }];
set_property -dict { PACKAGE_PIN T9    IOSTANDARD LVCMOS33 } [get_ports { leds[2] }];
set_property -dict { PACKAGE_PIN T10   IOSTANDARD LVCMOS33 } [get_ports { leds[3] }];
set_property -dict { PACKAGE_PIN D9    IOSTANDARD LVCMOS33 } [get_ports { btn[0] }];
set_property -dict { PACKAGE_PIN C9    IOSTANDARD LVCMOS33 } [get_ports { btn[1] }];
set_property -dict { PACKAGE_PIN B9    IOSTANDARD LVCMOS33 } [get_ports { btn[2] }];
set_property -dict { PACKAGE_PIN B8    IOSTANDARD LVCMOS33 } [get_ports { btn[3] }];
## The UART, the LEDs and the buttons are slow and asynchronous to the clock.
set_false_path -from [get_ports { uart_rxd btn[*] }]
set_false_path -to [get_ports { uart_txd leds[*] }]
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
