{S[i,j]->B[i,j]}
