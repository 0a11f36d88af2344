{S[i,j,k]->C[i,j]}
