int util(void){return 0;}
