int lex(void){return 0;}
