enum sig {
    SIG_HUP = 1,
    SIG_INT = 2,
    SIG_QUIT = 3,
    SIG_ILL = 4,
    SIG_TRAP = 5,
    SIG_ABRT = 6,
    SIG_BUS = 7,
    SIG_FPE = 8,
    SIG_KILL = 9,
    SIG_USR1 = 10,
    SIG_SEGV = 11,
    SIG_USR2 = 12,
    SIG_PIPE = 13,
    SIG_ALRM = 14,
    SIG_TERM = 15,
    SIG_STKFLT = 16,
    SIG_CHLD = 17,
    SIG_CONT = 18,
    SIG_STOP = 19,
    SIG_TSTP = 20,
};

const char *sig_name(enum sig s) {
    switch (s) {
    case SIG_HUP: return "SIGHUP";
    case SIG_INT: return "SIGINT";
    case SIG_QUIT: return "SIGQUIT";
    case SIG_ILL: return "SIGILL";
    case SIG_TRAP: return "SIGTRAP";
    case SIG_ABRT: return "SIGABRT";
    case SIG_BUS: return "SIGBUS";
    case SIG_FPE: return "SIGFPE";
    case SIG_KILL: return "SIGKILL";
    case SIG_USR1: return "SIGUSR1";
    case SIG_SEGV: return "SIGSEGV";
    case SIG_USR2: return "SIGUSR2";
    case SIG_PIPE: return "SIGPIPE";
    case SIG_ALRM: return "SIGALRM";
    case SIG_TERM: return "SIGTERM";
    case SIG_STKFLT: return "SIGSTKFLT";
    case SIG_CHLD: return "SIGCHLD";
    case SIG_CONT: return "SIGCONT";
    case SIG_STOP: return "SIGSTOP";
    case SIG_TSTP: return "SIGTSTP";
    default: return "?";
    }
}
