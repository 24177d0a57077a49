## Digilent Arty A7-100T (xc7a100tcsg324-1), 100 MHz oscillator, FT2232 USB-UART, LEDs LD4..LD7.
## Pins from Digilent/digilent-xdc Arty-A7-100-Master.xdc (CLK100MHZ E3, uart_rxd_out D10 = FPGA transmits,
## uart_txd_in A9 = FPGA receives, led[0..3] H5 J5 T9 T10), renamed to the ports of rnic.hw.fpga.OffloadSelfTestBoard.
set_property -dict { PACKAGE_PIN E3    IOSTANDARD LVCMOS33 } [get_ports { clk }];
create_clock -add -name sys_clk_pin -period 10.00 -waveform {0 5} [get_ports { clk }];
set_property -dict { PACKAGE_PIN D10   IOSTANDARD LVCMOS33 } [get_ports { uart_txd }];
set_property -dict { PACKAGE_PIN A9    IOSTANDARD LVCMOS33 } [get_ports { uart_rxd }];
set_property -dict { PACKAGE_PIN H5    IOSTANDARD LVCMOS33 } [get_ports { leds[0] }];
set_property -dict { PACKAGE_PIN J5    IOSTANDARD LVCMOS33 } [get_ports { leds[1] }];
set_property -dict { PACKAGE_PIN T9    IOSTANDARD LVCMOS33 } [get_ports { leds[2] }];
set_property -dict { PACKAGE_PIN T10   IOSTANDARD LVCMOS33 } [get_ports { leds[3] }];
## The UART and the LEDs are slow and asynchronous to the clock.
set_false_path -from [get_ports { uart_rxd }]
set_false_path -to [get_ports { uart_txd leds[*] }]
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
