int emit(void){return 0;}
