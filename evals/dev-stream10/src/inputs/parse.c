int parse(void){return 0;}
