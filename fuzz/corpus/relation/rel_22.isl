{PE[i,j]:0<=i<4 and 0<=j<4}
