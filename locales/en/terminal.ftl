## The tables the commands print, and the messages a person reads at the terminal.
