int opt(void){return 0;}
